# The advisor never prints a password: its output goes to cron mails and
# CI logs.  A closed port, a wrong password, a URI with a password (one
# libpq cannot parse, and one that connects): on stderr and in --json the
# server is named by its label (host:port/dbname), and no password shows.
use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";

use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

# TCP on 127.0.0.1 only, where pwuser must give its password
my $node = walsizer_node('advisor_secrets',
	conf => { listen_addresses => "'127.0.0.1'" });
my $hba = $node->data_dir . '/pg_hba.conf';
my $rules = slurp_file($hba);
open my $fh, '>', $hba or die "could not write $hba: $!";
print $fh "host all pwuser 127.0.0.1/32 scram-sha-256\n$rules";
close $fh;
$node->reload;
my $right = 'R1ghtS3cretPw';
$node->safe_psql('postgres',
	"SET password_encryption = 'scram-sha-256'; "
	  . "CREATE ROLE pwuser LOGIN PASSWORD '$right' IN ROLE pg_monitor");

my $port = $node->port;
my $closed = PostgreSQL::Test::Cluster::get_free_port();

# name, connection string, its password, label or message expected, exit status
my @cases = (
	[ 'a closed port',
	  "host=127.0.0.1 port=$closed dbname=postgres user=pwuser password=Cl0sedS3cretPw",
	  'Cl0sedS3cretPw', qr/could not connect to server "127\.0\.0\.1:$closed\/postgres": connection to server at "127\.0\.0\.1", port $closed failed/, 2 ],
	[ 'a wrong password',
	  "host=127.0.0.1 port=$port dbname=postgres user=pwuser password=Wr0ngS3cretPw",
	  'Wr0ngS3cretPw', qr/could not connect to server "127\.0\.0\.1:$port\/postgres": .*password authentication failed for user "pwuser"/, 2 ],
	[ 'a URI with a wrong password',
	  "postgresql://pwuser:Ur1S3cretPw\@127.0.0.1:$port/postgres",
	  'Ur1S3cretPw', qr/could not connect to server "127\.0\.0\.1:$port\/postgres": .*password authentication failed/, 2 ],
	[ 'a URI to a closed port',
	  "postgresql://pwuser:Ur1Cl0sedPw\@127.0.0.1:$closed/postgres",
	  'Ur1Cl0sedPw', qr/could not connect to server "127\.0\.0\.1:$closed\/postgres"/, 2 ],
	# libpq's own message quotes the value it cannot decode
	[ 'a URI libpq cannot parse',
	  "postgresql://pwuser:Unp4rsedPw%zz\@127.0.0.1:$port/postgres",
	  'Unp4rsedPw', qr/could not connect to server 1: invalid connection string: invalid percent-encoded token: "\*+"/, 2 ],
	[ 'a URI with the right password',
	  "postgresql://pwuser:$right\@127.0.0.1:$port/postgres",
	  $right, qr/^$/, 0 ],
);
for my $case (@cases)
{
	my ($name, $conninfo, $password, $message, $status) = @$case;
	for my $json (0, 1)
	{
		my $how = $json ? "$name, --json" : $name;
		my ($rc, $out, $err) = run_advisor('--duration=2s', '--sample-interval=500ms',
			($json ? '--json' : ()), $conninfo);
		is($rc, $status, "$how: exit status $status") or diag($err);
		like($err, $message, "$how: says so, naming the server by its label");
		unlike($err, qr/\Q$password\E/, "$how: no password on stderr");
		unlike($out, qr/\Q$password\E/, "$how: no password on stdout");
		# nor the part libpq's messages could echo, cut at any end
		unlike($err . $out, qr/\Q@{[ substr($password, 0, 6) ]}\E|\Q@{[ substr($password, -6) ]}\E/,
			"$how: nor a part of it");
		next unless $status == 0;
		if ($json)
		{
			is(decode_json($out)->{servers}[0]{server}, "127.0.0.1:$port/postgres",
				"$how: the JSON names the server by its label");
		}
		else
		{
			like($out, qr/^127\.0\.0\.1:$port\/postgres \(PostgreSQL \d+, primary\): measured/m,
				"$how: the report names the server by its label");
		}
	}
}

$node->stop;
done_testing();

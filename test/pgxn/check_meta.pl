#!/usr/bin/perl
# test/pgxn/check_meta.pl - check a META.json against the PGXN Meta Spec
# 1.0.0 and against the source tree it describes.
#
#   test/pgxn/check_meta.pl META.json [TREE]
#
# pgxnclient reads a distribution's META.json but does not validate it, and
# PGXN's own validator is not packaged for Debian: this is the check the
# release upload would make, written from the spec's rules (required keys,
# the types of each value, semantic versions, the license names, prereq
# phases and relationships, custom keys only with an x_ prefix). With TREE
# (default: the file's directory) it also checks that the metadata agrees
# with the tree: the extension's name, its control file's default_version
# and install script, the files it names.
#
# Prints one line per problem and exits 1 if there is any, 0 otherwise.
# test/pgxn-check.sh feeds it broken copies to prove each rule can fail.
use strict;
use warnings;
use File::Basename qw(dirname);
use JSON::PP;

my ($meta_path, $tree) = @ARGV;
die "usage: $0 META.json [TREE]\n" unless defined $meta_path;
$tree //= dirname($meta_path);

my @problems;
sub problem { push @problems, join('', @_) }

my $meta = eval {
	open my $fh, '<', $meta_path or die "cannot open: $!\n";
	local $/;
	JSON::PP->new->utf8->decode(<$fh>);
};
if (!defined $meta)
{
	print "$meta_path: not valid JSON: $@";
	exit 1;
}
if (ref $meta ne 'HASH')
{
	print "$meta_path: the top level is not an object\n";
	exit 1;
}

# --- value types of the spec ------------------------------------------

sub is_string { my ($v) = @_; defined $v && !ref $v && length $v }

# Semantic Versioning 1.0.0, which the spec names: three integers without
# leading zeros, an optional pre-release tag appended.
sub is_semver
{
	my ($v) = @_;
	is_string($v)
	  && $v =~ /\A(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-?[0-9A-Za-z][0-9A-Za-z-]*)?\z/;
}

# A term: at least two characters, none of them space, control, / \ or :
sub is_term
{
	my ($v) = @_;
	is_string($v) && length $v >= 2 && $v !~ m{[\s[:cntrl:]/\\:]};
}

# A tag: fewer than 256 characters, no slash, backslash or control character.
sub is_tag
{
	my ($v) = @_;
	is_string($v) && length $v < 256 && $v !~ m{[[:cntrl:]/\\]};
}

# A version range: 0 (any version), a version, or comma-separated
# comparisons with ==, !=, <, <=, >, >=.
sub is_version_range
{
	my ($v) = @_;
	return 0 unless defined $v && !ref $v;
	return 1 if $v eq '0';
	for my $part (split /\s*,\s*/, $v, -1)
	{
		my ($op, $ver) = $part =~ /\A\s*(==|!=|<=|>=|<|>)?\s*(\S+)\s*\z/;
		return 0 unless defined $ver && is_semver($ver);
	}
	return 1;
}

sub is_uri { my ($v) = @_; is_string($v) && $v =~ m{\A[A-Za-z][A-Za-z0-9+.-]*:\S+\z} }

my %license_names = map { $_ => 1 } qw(agpl_3 apache_1_1 apache_2_0 artistic_1
  artistic_2 bsd freebsd gfdl_1_2 gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0
  mit mozilla_1_0 mozilla_1_1 openssl perl_5 postgresql qpl_1_0 ssleay sun zlib
  open_source restricted unrestricted unknown);

sub check_keys
{
	my ($where, $obj, @known) = @_;
	my %known = map { $_ => 1 } @known;
	for my $k (sort keys %$obj)
	{
		next if $known{$k} || $k =~ /\A[xX]_/;
		problem("$where: unknown key \"$k\" (custom keys start with x_)");
	}
}

# --- the spec's rules -------------------------------------------------

for my $k (qw(name abstract maintainer license provides version meta-spec))
{
	problem("required key \"$k\" is missing") unless exists $meta->{$k};
}
check_keys('top level', $meta, qw(name abstract description version maintainer
	  license provides prereqs release_status resources tags no_index
	  generated_by meta-spec));

problem("name: \"", $meta->{name} // '', "\" is not a term (2+ characters, no space, / \\ or :)")
  if exists $meta->{name} && !is_term($meta->{name});
problem("version: \"", $meta->{version} // '', "\" is not a semantic version (MAJOR.MINOR.PATCH)")
  if exists $meta->{version} && !is_semver($meta->{version});
for my $k (qw(abstract description generated_by))
{
	problem("$k: not a non-empty string") if exists $meta->{$k} && !is_string($meta->{$k});
}

if (exists $meta->{maintainer})
{
	my $m = $meta->{maintainer};
	my @m = ref $m eq 'ARRAY' ? @$m : ($m);
	problem("maintainer: not a string or a non-empty list of strings")
	  if !@m || grep { !is_string($_) } @m;
}

if (exists $meta->{license})
{
	my $l = $meta->{license};
	if (ref $l eq 'HASH')
	{
		problem("license: an object needs at least one name => URL")
		  if !%$l || grep { !is_uri($l->{$_}) } keys %$l;
	}
	else
	{
		my @l = ref $l eq 'ARRAY' ? @$l : ($l);
		problem("license: \"$_\" is not one of the spec's license names")
		  for grep { !(is_string($_) && $license_names{$_}) } (@l ? @l : (''));
	}
}

my %provides = ref $meta->{provides} eq 'HASH' ? %{ $meta->{provides} } : ();
if (exists $meta->{provides})
{
	problem("provides: not an object naming at least one extension") unless %provides;
	for my $ext (sort keys %provides)
	{
		my $p = $provides{$ext};
		if (ref $p ne 'HASH')
		{
			problem("provides.$ext: not an object");
			next;
		}
		problem("provides.$ext: \"$ext\" is not a term") unless is_term($ext);
		check_keys("provides.$ext", $p, qw(file version abstract docfile));
		problem("provides.$ext.file: missing or not a path") unless is_string($p->{file});
		problem("provides.$ext.version: \"", $p->{version} // '',
			"\" is not a semantic version (MAJOR.MINOR.PATCH)")
		  unless is_semver($p->{version});
		for my $k (qw(abstract docfile))
		{
			problem("provides.$ext.$k: not a non-empty string")
			  if exists $p->{$k} && !is_string($p->{$k});
		}
	}
}

if (exists $meta->{'meta-spec'})
{
	my $s = $meta->{'meta-spec'};
	if (ref $s ne 'HASH')
	{
		problem("meta-spec: not an object");
	}
	else
	{
		check_keys('meta-spec', $s, qw(version url));
		problem("meta-spec.version: \"", $s->{version} // '', "\" is not 1.0.0, the spec this file follows")
		  unless defined $s->{version} && $s->{version} eq '1.0.0';
		problem("meta-spec.url: not a URI") if exists $s->{url} && !is_uri($s->{url});
	}
}

if (exists $meta->{release_status})
{
	problem("release_status: \"", $meta->{release_status} // '', "\" is not stable, testing or unstable")
	  unless ($meta->{release_status} // '') =~ /\A(stable|testing|unstable)\z/;
}

if (exists $meta->{tags})
{
	my $t = $meta->{tags};
	if (ref $t ne 'ARRAY' || !@$t) { problem("tags: not a non-empty list") }
	else { problem("tags: \"$_\" is not a tag (under 256 characters, no / or \\)") for grep { !is_tag($_) } @$t }
}

if (exists $meta->{no_index})
{
	my $n = $meta->{no_index};
	if (ref $n ne 'HASH') { problem("no_index: not an object") }
	else
	{
		check_keys('no_index', $n, qw(file directory));
		for my $k (sort keys %$n)
		{
			next if $k =~ /\A[xX]_/;
			my @v = ref $n->{$k} eq 'ARRAY' ? @{ $n->{$k} } : ($n->{$k});
			problem("no_index.$k: not a path or a list of paths") if !@v || grep { !is_string($_) } @v;
		}
	}
}

if (exists $meta->{prereqs})
{
	my $pr = $meta->{prereqs};
	if (ref $pr ne 'HASH') { problem("prereqs: not an object") }
	else
	{
		check_keys('prereqs', $pr, qw(configure build test runtime develop));
		for my $phase (sort grep { !/\A[xX]_/ } keys %$pr)
		{
			my $rel = $pr->{$phase};
			if (ref $rel ne 'HASH') { problem("prereqs.$phase: not an object"); next }
			check_keys("prereqs.$phase", $rel, qw(requires recommends suggests conflicts));
			for my $r (sort grep { !/\A[xX]_/ } keys %$rel)
			{
				my $deps = $rel->{$r};
				if (ref $deps ne 'HASH') { problem("prereqs.$phase.$r: not an object"); next }
				for my $d (sort keys %$deps)
				{
					problem("prereqs.$phase.$r.$d: \"", $deps->{$d} // '', "\" is not a version range")
					  unless is_version_range($deps->{$d});
				}
			}
		}
	}
}

if (exists $meta->{resources})
{
	my $r = $meta->{resources};
	if (ref $r ne 'HASH') { problem("resources: not an object") }
	else
	{
		check_keys('resources', $r, qw(homepage bugtracker repository));
		problem("resources.homepage: not a URI") if exists $r->{homepage} && !is_uri($r->{homepage});
		for my $k (qw(bugtracker repository))
		{
			next unless exists $r->{$k};
			if (ref $r->{$k} ne 'HASH') { problem("resources.$k: not an object"); next }
			for my $f (sort keys %{ $r->{$k} })
			{
				next if $f =~ /\A[xX]_/ || $f eq 'mailto' || $f eq 'type';
				problem("resources.$k.$f: not a URI") unless is_uri($r->{$k}{$f});
			}
		}
	}
}

# --- agreement with the tree ------------------------------------------

sub read_file
{
	my ($path) = @_;
	open my $fh, '<', $path or return undef;
	local $/;
	return scalar <$fh>;
}

my $makefile = read_file("$tree/Makefile") // '';
my ($extension) = $makefile =~ /^EXTENSION\s*=\s*(\S+)/m;
if (!defined $extension)
{
	problem("$tree/Makefile: no EXTENSION line to compare with");
}
else
{
	my $control = read_file("$tree/$extension.control");
	my ($default) = defined $control ? $control =~ /^default_version\s*=\s*'([^']+)'/m : ();
	if (!defined $default)
	{
		problem("$tree/$extension.control: missing or without default_version");
	}
	elsif (!$provides{$extension})
	{
		problem("provides: does not name the extension \"$extension\" the Makefile builds");
	}
	else
	{
		my $p = $provides{$extension};
		# the SQL API version X.Y is released as the semantic version X.Y.Z
		for my $which (['version', $meta->{version}], ["provides.$extension.version", $p->{version}])
		{
			my ($key, $v) = @$which;
			problem("$key: \"", $v // '', "\" is not the control file's default_version $default (as $default.N)")
			  unless defined $v && index($v, "$default.") == 0;
		}
		# The tree ships one install script (the base version's) and the
		# update chain from it: "file" names that one script.
		my @install = sort map { s{^\Q$tree\E/}{}r }
		  grep { !/--.*--/ } glob("$tree/$extension--*.sql");
		problem("provides.$extension.file: \"", $p->{file} // '', "\" is not the one install script of the tree (",
			join(', ', @install) || 'none', ")")
		  unless @install == 1 && ($p->{file} // '') eq $install[0];
	}
}
for my $ext (sort keys %provides)
{
	next unless ref $provides{$ext} eq 'HASH';
	for my $k (qw(file docfile))
	{
		my $f = $provides{$ext}{$k};
		problem("provides.$ext.$k: \"$f\" does not exist in $tree")
		  if is_string($f) && !-f "$tree/$f";
	}
}
if (ref $meta->{no_index} eq 'HASH' && exists $meta->{no_index}{directory})
{
	my $d = $meta->{no_index}{directory};
	problem("no_index.directory: \"$_\" does not exist in $tree")
	  for grep { is_string($_) && !-d "$tree/$_" } (ref $d eq 'ARRAY' ? @$d : ($d));
}

print "$meta_path: $_\n" for @problems;
exit(@problems ? 1 : 0);

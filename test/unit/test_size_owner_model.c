/*-------------------------------------------------------------------------
 *
 * test_size_owner_model.c
 *		Every sequence of DBA actions and pg_walsizer changes, up to
 *		MODEL_DEPTH events long, run through size_owner.c and through a
 *		reference model written from the table in docs/safety.md ("What
 *		happens when you ..."): after every event both must agree on the
 *		value the server runs, who owns it and the DBA's baseline.
 *
 * Two simulated servers are kept side by side, one driven by size_owner.c
 * the way the worker drives it (impl_*), one by the reference model
 * (model_*).  A simulated server knows what the real one does and no more:
 * postgresql.conf with an included file after it, postgresql.auto.conf
 * read last, the values on disk and the values loaded at the last reload,
 * and that the server matches parameter names without regard to case.
 * The events a DBA can cause are applied to both alike; pg_walsizer's
 * wishes (grow, shrink, protect the disk) are offered to each side, which
 * writes them only where its own rules allow.
 *
 * The reference model is deliberately naive: it never looks at the
 * tracker and never calls size_owner.c.  MODEL_DEPTH (environment) bounds
 * the length, 6 by default; the count of sequences checked is printed.
 * Lengths are tried one after the other, so that a divergence is reported
 * with a shortest sequence that shows it.
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include <stdlib.h>

#include "size_owner.h"

/* The server's default when no file sets max_wal_size, and the DBA's first. */
#define DEFAULT_MB 1024
/* What pg_walsizer wants: grow to, the least it shrinks to, protect at. */
#define GROW_MB 2048
#define SHRINK_MB 128
#define PROTECT_MB 96

/* --- A simulated server --------------------------------------------------- */

typedef struct Files
{
	int64_t		conf;			/* postgresql.conf's line, 0 none */
	int64_t		incl;			/* the included file's, after it; 0 none */
	int64_t		autov;			/* postgresql.auto.conf's, 0 none */
	const char *auto_name;		/* how its line spells the name */
} Files;

typedef struct Server
{
	Files		disk;
	Files		loaded;			/* as of the last reload */
	bool		touched;		/* a file was written since the last reload */
	bool		enabled;
	bool		dry_run;
	uint64_t	alter_count;	/* ALTER SYSTEM of max_wal_size (the hook) */
	bool		fail_next;		/* the next ALTER SYSTEM by walsizer fails */
} Server;

/* What the server runs: postgresql.auto.conf, else the last file line. */
static int64_t
running(const Server *s)
{
	if (s->loaded.autov)
		return s->loaded.autov;
	if (s->loaded.incl)
		return s->loaded.incl;
	return s->loaded.conf ? s->loaded.conf : DEFAULT_MB;
}

static int64_t
files_value(const Files *f)
{
	return f->incl ? f->incl : f->conf;
}

static void
server_init(Server *s)
{
	memset(s, 0, sizeof(*s));
	s->disk.conf = DEFAULT_MB;
	s->disk.auto_name = "max_wal_size";
	s->loaded = s->disk;
	s->enabled = true;
}

/* ALTER SYSTEM SET (value > 0) or RESET (0), spelled name, not reloaded. */
static void
server_alter(Server *s, int64_t value, const char *name)
{
	s->disk.autov = value;
	s->disk.auto_name = name;
	s->touched = true;
	if (walsizer_names_max_wal_size(name))
		s->alter_count++;		/* auto_conf_guard.c counts it */
}

/* --- The implementation, driven as worker.c drives it ---------------------- */

typedef struct Impl
{
	Server		srv;
	WalsizerSizeTracker t;
	uint64_t	count_loaded;
	uint64_t	count_seen;
} Impl;

/* postgresql.auto.conf as config_files.c reads it */
static int64_t
glue_auto(const Files *f)
{
	return walsizer_names_max_wal_size(f->auto_name) ? f->autov : 0;
}

static void impl_write(Impl *w, int64_t mb, bool for_dba, bool disk_guard);

static void
impl_look(Impl *w)
{
	WalsizerOwnerLook look;
	int64_t		previous;

	memset(&look, 0, sizeof(look));
	look.server_mb = running(&w->srv);
	look.window_end = true;
	look.dba_altered = w->count_loaded != w->count_seen;
	w->count_seen = w->count_loaded;
	look.files_known = true;
	look.file_mb = files_value(&w->srv.loaded);
	look.auto_mb = glue_auto(&w->srv.loaded);
	look.enabled = w->srv.enabled;
	look.dry_run = w->srv.dry_run;
	(void) walsizer_owner_observe(&w->t, &look, &previous);
	if (walsizer_owner_look_at_files(&w->t, &look) == WALSIZER_SHADOW_ADOPT)
		impl_write(w, look.file_mb, true, false);
}

static void
impl_reload(Impl *w)
{
	w->count_loaded = w->srv.alter_count;
	w->srv.loaded = w->srv.disk;
	w->srv.touched = false;
	impl_look(w);
}

static void
impl_write(Impl *w, int64_t mb, bool for_dba, bool disk_guard)
{
	WalsizerWriteFacts facts;

	memset(&facts, 0, sizeof(facts));
	facts.enabled = w->srv.enabled;
	facts.dry_run = w->srv.dry_run;
	facts.disk_guard = disk_guard;
	facts.alter_system_allowed = true;
	/* config_files.c: postgresql.auto.conf's value, and any file's mtime */
	facts.config_pending =
		walsizer_owner_change_pending(glue_auto(&w->srv.disk),
									  glue_auto(&w->srv.loaded),
									  w->srv.touched);
	if (walsizer_owner_may_write(&facts) != WALSIZER_WRITE)
		return;
	if (w->srv.fail_next)
		return;
	w->srv.disk.autov = mb;
	w->srv.disk.auto_name = "max_wal_size";
	w->srv.touched = true;
	/* written under the hook's lock: the statements before it are replaced */
	w->count_seen = w->srv.alter_count;
	if (for_dba)
		walsizer_owner_written_for_dba(&w->t, mb);
	else
		walsizer_owner_written(&w->t, mb);
	impl_reload(w);
}

static void
impl_restart(Impl *w)
{
	WalsizerPersistedSizes p;
	int64_t		from;

	p.baseline_mb = w->t.baseline_mb;
	p.last_set_mb = w->t.owner == WALSIZER_OWNER_WALSIZER ? w->t.running_mb : 0;
	p.intent_mb = 0;
	w->srv.loaded = w->srv.disk;
	w->srv.touched = false;
	w->srv.alter_count = w->count_loaded = w->count_seen = 0;
	(void) walsizer_owner_start(&w->t, running(&w->srv), &p, &from);
	impl_look(w);
}

/* --- The reference model, from docs/safety.md's table ----------------------- */

typedef struct Model
{
	Server		srv;
	WalsizerSizeOwner owner;
	int64_t		baseline;
	bool		dba_altered;	/* an ALTER SYSTEM since the last reload */
	int64_t		intent;			/* a shadowed edit waiting to be written */
} Model;

static void model_reload(Model *m, int64_t written, bool for_dba);

/* "pg_walsizer never writes while a DBA change waits for a reload" */
static void
model_write(Model *m, int64_t mb, bool for_dba, bool disk_guard)
{
	if (!m->srv.enabled || m->srv.dry_run || (m->srv.touched && !disk_guard) ||
		m->srv.fail_next)
		return;
	m->srv.disk.autov = mb;
	m->srv.disk.auto_name = "max_wal_size";
	m->srv.touched = true;
	m->dba_altered = false;		/* a pending ALTER SYSTEM is overwritten */
	model_reload(m, mb, for_dba);
}

static void
model_dbas(Model *m, int64_t mb)
{
	m->owner = WALSIZER_OWNER_DBA;
	m->baseline = mb;
	m->intent = 0;
}

/*
 * A reload, after walsizer's own write of written (0: the DBA's reload).
 * "The newest DBA intent wins": an ALTER SYSTEM or any other change of
 * what runs is the DBA's; an edit of the files that postgresql.auto.conf
 * shadows is written for them, once pg_walsizer is on (advised, only, in
 * a dry run); an edit to the value that runs just becomes the baseline.
 */
static void
model_reload(Model *m, int64_t written, bool for_dba)
{
	int64_t		old_run = running(&m->srv);
	int64_t		old_files = files_value(&m->srv.loaded);
	int64_t		now_run;
	int64_t		now_files;

	m->srv.loaded = m->srv.disk;
	m->srv.touched = false;
	now_run = running(&m->srv);
	now_files = files_value(&m->srv.loaded);
	if (m->dba_altered || (written == 0 && now_run != old_run))
		model_dbas(m, now_run);
	else
	{
		if (written != 0 && for_dba)
			model_dbas(m, written);
		else if (written != 0)
			m->owner = WALSIZER_OWNER_WALSIZER;
		if (now_files != old_files && now_files != 0 && m->srv.loaded.autov != 0)
		{
			if (now_files == now_run)
				model_dbas(m, now_files);
			else
				m->intent = now_files;
		}
	}
	m->dba_altered = false;
	if (m->intent != 0 && m->srv.enabled && m->srv.dry_run)
		m->intent = 0;			/* advised once */
	if (m->intent != 0 && m->srv.enabled)
		model_write(m, m->intent, true, false);
}

/*
 * A restart: pg_walsizer keeps what it wrote last if that runs, else the
 * running value is the DBA's; an edit found at start is only reported.
 */
static void
model_restart(Model *m)
{
	int64_t		ours = m->owner == WALSIZER_OWNER_WALSIZER ? running(&m->srv) : 0;
	int64_t		now_run;

	m->srv.loaded = m->srv.disk;
	m->srv.touched = false;
	m->srv.alter_count = 0;
	m->dba_altered = false;
	m->intent = 0;
	now_run = running(&m->srv);
	if (ours != 0 && now_run == ours)
		m->owner = WALSIZER_OWNER_WALSIZER;
	else if (ours != 0 || now_run != m->baseline)
		model_dbas(m, now_run);
}

/* --- Events ------------------------------------------------------------------ */

typedef enum Event
{
	EV_CONF_256, EV_CONF_512, EV_CONF_RUNNING, EV_INCL_512,
	EV_ALTER_256, EV_ALTER_512_UPPER, EV_ALTER_RUNNING_MIXED, EV_RESET,
	EV_RELOAD, EV_GROW, EV_SHRINK, EV_PROTECT, EV_GROW_FAILS,
	EV_TOGGLE_ENABLE, EV_TOGGLE_DRY_RUN, EV_RESTART,
	EV_COUNT
} Event;

static const char *const event_names[EV_COUNT] = {
	"postgresql.conf = 256MB", "postgresql.conf = 512MB",
	"postgresql.conf = the running value", "include file = 512MB",
	"ALTER SYSTEM SET max_wal_size = 256MB",
	"ALTER SYSTEM SET \"MAX_WAL_SIZE\" = 512MB",
	"ALTER SYSTEM SET \"Max_Wal_Size\" = the running value",
	"ALTER SYSTEM RESET max_wal_size", "reload", "pg_walsizer grows",
	"pg_walsizer shrinks", "pg_walsizer protects the disk",
	"pg_walsizer's write fails", "walsizer.enable toggled (and reloaded)",
	"walsizer.dry_run toggled (and reloaded)", "restart"
};

/* What a DBA does, to one simulated server; true when it reloads. */
static bool
dba_event(Server *s, Event e)
{
	switch (e)
	{
		case EV_CONF_256:
			s->disk.conf = 256;
			break;
		case EV_CONF_512:
			s->disk.conf = 512;
			break;
		case EV_CONF_RUNNING:
			s->disk.conf = running(s);
			break;
		case EV_INCL_512:
			s->disk.incl = 512;
			break;
		case EV_ALTER_256:
			server_alter(s, 256, "max_wal_size");
			return false;
		case EV_ALTER_512_UPPER:
			server_alter(s, 512, "MAX_WAL_SIZE");
			return false;
		case EV_ALTER_RUNNING_MIXED:
			server_alter(s, running(s), "Max_Wal_Size");
			return false;
		case EV_RESET:
			server_alter(s, 0, "max_wal_size");
			return false;
		case EV_RELOAD:
			return true;
		case EV_TOGGLE_ENABLE:
			s->enabled = !s->enabled;
			return true;
		case EV_TOGGLE_DRY_RUN:
			s->dry_run = !s->dry_run;
			return true;
		default:
			return false;
	}
	s->touched = true;
	return false;
}

/* What pg_walsizer's policy wants now, 0 for nothing; the floor is the baseline. */
static int64_t
wish(Event e, int64_t run, int64_t baseline)
{
	int64_t		floor_mb = baseline > SHRINK_MB ? baseline : SHRINK_MB;

	if ((e == EV_GROW || e == EV_GROW_FAILS) && run < GROW_MB)
		return GROW_MB;
	if (e == EV_SHRINK && floor_mb < run)
		return floor_mb;
	if (e == EV_PROTECT && run > PROTECT_MB)
		return PROTECT_MB;
	return 0;
}

static bool
is_dba_event(Event e)
{
	return e <= EV_RELOAD || e == EV_TOGGLE_ENABLE || e == EV_TOGGLE_DRY_RUN;
}

static void
impl_event(Impl *w, Event e)
{
	int64_t		mb;

	if (is_dba_event(e))
	{
		if (dba_event(&w->srv, e))
			impl_reload(w);
		return;
	}
	if (e == EV_RESTART)
		impl_restart(w);
	mb = wish(e, running(&w->srv), w->t.baseline_mb);
	w->srv.fail_next = e == EV_GROW_FAILS;
	if (mb != 0)
		impl_write(w, mb, false, e == EV_PROTECT);
	w->srv.fail_next = false;
}

static void
model_event(Model *m, Event e)
{
	int64_t		mb;

	if (is_dba_event(e))
	{
		/* the server takes the name in any case */
		if (e >= EV_ALTER_256 && e <= EV_RESET)
			m->dba_altered = true;
		if (dba_event(&m->srv, e))
			model_reload(m, 0, false);
		return;
	}
	if (e == EV_RESTART)
		model_restart(m);
	mb = wish(e, running(&m->srv), m->baseline);
	m->srv.fail_next = e == EV_GROW_FAILS;
	if (mb != 0)
		model_write(m, mb, false, e == EV_PROTECT);
	m->srv.fail_next = false;
}

/* --- The enumeration ----------------------------------------------------------- */

static long long sequences_checked;
static long long steps_checked;
static bool failure_reported;

static void
report_divergence(const Event *seq, int len, const Impl *w, const Model *m)
{
	char		msg[2048];
	size_t		used = 0;

	used += snprintf(msg + used, sizeof(msg) - used, "diverged after:");
	for (int i = 0; i < len && used < sizeof(msg); i++)
		used += snprintf(msg + used, sizeof(msg) - used, " [%s]",
						 event_names[seq[i]]);
	if (used < sizeof(msg))
		snprintf(msg + used, sizeof(msg) - used,
				 "; runs %lld/%lld (implementation/model), owner %s/%s, baseline %lld/%lld",
				 (long long) running(&w->srv), (long long) running(&m->srv),
				 walsizer_owner_name(w->t.owner), walsizer_owner_name(m->owner),
				 (long long) w->t.baseline_mb, (long long) m->baseline);
	unit_report(__FILE__, __LINE__, msg);
	failure_reported = true;
}

static void
explore(const Impl *w, const Model *m, Event *seq, int len, int depth)
{
	if (len == depth)
	{
		sequences_checked++;
		return;
	}
	for (int e = 0; e < EV_COUNT && !failure_reported; e++)
	{
		Impl		w2 = *w;
		Model		m2 = *m;

		seq[len] = (Event) e;
		impl_event(&w2, (Event) e);
		model_event(&m2, (Event) e);
		steps_checked++;
		if (running(&w2.srv) != running(&m2.srv) || w2.t.owner != m2.owner ||
			w2.t.baseline_mb != m2.baseline)
		{
			report_divergence(seq, len + 1, &w2, &m2);
			return;
		}
		explore(&w2, &m2, seq, len + 1, depth);
	}
}

static void
every_sequence_agrees_with_the_reference_model(void)
{
	const char *env = getenv("MODEL_DEPTH");
	int			depth = env ? atoi(env) : 6;
	Impl		w;
	Model		m;
	Event		seq[16];
	WalsizerPersistedSizes none = {0, 0, 0};
	int64_t		from;

	if (depth < 1 || depth > 16)
		depth = 6;
	server_init(&w.srv);
	w.count_loaded = w.count_seen = 0;
	(void) walsizer_owner_start(&w.t, running(&w.srv), &none, &from);
	impl_look(&w);
	memset(&m, 0, sizeof(m));
	server_init(&m.srv);
	m.owner = WALSIZER_OWNER_DBA;
	m.baseline = running(&m.srv);

	/* one length after the other, so that a divergence found is a shortest one */
	for (int length = 1; length <= depth && !failure_reported; length++)
	{
		sequences_checked = steps_checked = 0;
		explore(&w, &m, seq, 0, length);
	}
	printf("# %lld sequences of %d events (%lld steps) checked against the reference model\n",
		   sequences_checked, depth, steps_checked);
	CHECK(!failure_reported);
}

int
main(void)
{
	RUN_TEST("size_owner_model", every_sequence_agrees_with_the_reference_model);
	return unit_exit_status();
}

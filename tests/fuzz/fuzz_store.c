/*
 * fuzz_store.c -- libFuzzer harness for the store's readers given a
 * foreign database file: the input's bytes are written to a file, which
 * is then read as scaleprobe db check (store_check), show and export
 * (store_open read-only, history_*, store_alert_each, their folds and
 * renderings) and report (report_query, report.c) read one.  SQLite may
 * refuse the file or fail any query; what is checked is our side:
 *   - no crash, leak or undefined behaviour (ASan, UBSan, LSan);
 *   - a refusal or a failure names the file;
 *   - db check's faults are lines with no control byte (they are printed
 *     as they are);
 *   - show's and report's text hold no control byte but the newline (a
 *     store cannot drive the terminal), their JSON and export's are whole;
 *   - rows' fields lie in history.h's ranges;
 *   - reading never changes the file, and a file whose header does not
 *     say WAL (its read version, byte 19, 2) gets nothing made beside it.
 *
 * The file is the input as it is, or, when the input starts with 0xfe,
 * one of the real stores of tests/fuzz/store-templates/ (the second byte
 * picks it) edited by the rest (store_edit below): inputs of a few bytes
 * reach every row of a 27 KB store, so the corpus stays small.  The
 * templates are read from FUZZ_STORE_TEMPLATES, else from that directory
 * under the current one (the repository's top, where make runs it), and
 * must be of the store's schema version (else the harness stops at once).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "evidence.h"
#include "export_pcap.h"
#include "export_render.h"
#include "history.h"
#include "json.h"
#include "report.h"
#include "report_query.h"
#include "show_fold.h"
#include "show_render.h"
#include "store.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_store: %s:%d: %s\n", \
	__FILE__, __LINE__, #c); abort(); } } while (0)

/* the hosts shown per input: the first distinct addresses and targets */
#define HOSTS 4

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	LLVMFuzzerInitialize(int *, char ***);

static char dir[64], file[96], beside[3][112];
static FILE *devnull;

#define TEMPLATE_MAGIC	0xfe
static const char *const template_names[] = { "run-store.sqlite", "fixture-alerts.sqlite" };
#define NTEMPLATES (sizeof(template_names) / sizeof(template_names[0]))
static struct {
	uint8_t *p;
	size_t n;
} templates[NTEMPLATES];
static size_t template_max;

static void
load_templates(void)
{
	const char *d = getenv("FUZZ_STORE_TEMPLATES");
	char path[4200];

	if (d == NULL)
		d = "tests/fuzz/store-templates";
	for (size_t i = 0; i < NTEMPLATES; i++) {
		FILE *f;
		long n;

		snprintf(path, sizeof(path), "%s/%s", d, template_names[i]);
		if ((f = fopen(path, "rb")) == NULL || fseek(f, 0, SEEK_END) != 0 ||
		    (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0 ||
		    (templates[i].p = malloc((size_t)n)) == NULL ||
		    fread(templates[i].p, 1, (size_t)n, f) != (size_t)n) {
			fprintf(stderr, "fuzz_store: %s: cannot read it (run from the "
			    "repository's top, or set FUZZ_STORE_TEMPLATES)\n", path);
			exit(1);
		}
		fclose(f);
		templates[i].n = (size_t)n;
		/* a template of an older schema is refused by every reader
		 * at its first step ("scaleprobe db upgrade migrates it"): the
		 * inputs would fuzz that one line.  So a schema change must
		 * bring the templates with it (scaleprobe db upgrade, then
		 * journal_mode=DELETE and VACUUM) */
		if (n < 64 || ((uint32_t)templates[i].p[60] << 24 | (uint32_t)templates[i].p[61] << 16 |
		    (uint32_t)templates[i].p[62] << 8 | templates[i].p[63]) != STORE_SCHEMA_VERSION) {
			fprintf(stderr, "fuzz_store: %s: not of schema version %d (its "
			    "user_version): upgrade the template with scaleprobe db upgrade\n",
			    path, STORE_SCHEMA_VERSION);
			exit(1);
		}
		if ((size_t)n > template_max)
			template_max = (size_t)n;
	}
}

/*
 * The file an input stands for, into out (room bytes: the input's size
 * and the largest template's, and 64): the input itself, or after
 * TEMPLATE_MAGIC and a template's number, edits to that template, each
 * an op byte and a 16-bit offset (big-endian) followed by
 *   op & 3 == 0, 1: op >> 2 bytes written at the offset
 *                   (modulo the file's size, cut at its end);
 *   op & 3 == 2:    the file cut to the offset's length, when shorter;
 *   op & 3 == 3:    op >> 2 bytes appended (the offset unused).
 * Returns the file's size.
 */
static size_t
store_edit(const uint8_t *data, size_t size, uint8_t *out)
{
	size_t n, i = 2;

	if (size < 2 || data[0] != TEMPLATE_MAGIC) {
		if (size > 0)
			memcpy(out, data, size);
		return size;
	}
	n = templates[data[1] % NTEMPLATES].n;
	memcpy(out, templates[data[1] % NTEMPLATES].p, n);
	while (i + 3 <= size) {
		unsigned op = data[i];
		size_t off = (size_t)data[i + 1] << 8 | data[i + 2], len = op >> 2;

		i += 3;
		len = len < size - i ? len : size - i;
		switch (op & 3) {
		case 0:
		case 1:
			if (len == 0 || n == 0)
				break;
			off %= n;
			memcpy(out + off, data + i, off + len <= n ? len : n - off);
			i += len;
			break;
		case 2:
			if (off < n)
				n = off;
			break;
		default:
			memcpy(out + n, data + i, len);
			n += len;
			i += len;
			break;
		}
	}
	return n;
}

static void
cleanup(void)
{
	unlink(file);
	for (int i = 0; i < 3; i++)
		unlink(beside[i]);
	rmdir(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const sfx[3] = { "-wal", "-shm", "-journal" };
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "%s/fuzz_store.XXXXXX",
	    tmp != NULL && strlen(tmp) < 40 ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror(dir);
		exit(1);
	}
	snprintf(file, sizeof(file), "%s/store.sqlite", dir);
	for (int i = 0; i < 3; i++)
		snprintf(beside[i], sizeof(beside[i]), "%s%s", file, sfx[i]);
	atexit(cleanup);
	load_templates();
	if ((devnull = fopen("/dev/null", "w")) == NULL)
		exit(1);
	/* show's local times, the same on every machine */
	setenv("TZ", "UTC", 1);
	return 0;
}

/* A line with no control byte (what db check and the errors print). */
static void
check_line(const char *s)
{
	CHECK(s != NULL && s[0] != '\0');
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
		CHECK(*p >= 0x20 && *p != 0x7f);
}

/* Text for a terminal: lines of no control byte, no C1 control. */
static void
check_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		CHECK(c != 0x7f && (c >= 0x20 || c == '\n'));
		CHECK(!(c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f));
	}
}

/* An error of the store's, naming the file (the programs print it through
 * log.c, which escapes what SQLite's message quotes of the file). */
static void
check_err(const char *err)
{
	CHECK(err != NULL && err[0] != '\0');
	CHECK(strncmp(err, file, strlen(file)) == 0);
}

static void
check_row(const struct history_row *r)
{
	CHECK(r->target != NULL && r->address != NULL && r->family != NULL &&
	    r->vantage != NULL);
	CHECK(r->port >= -1 && r->port <= 65535);
	CHECK(r->scale_sent >= -1 && r->scale_sent <= 255);
	CHECK(r->scale_idx >= -1 && r->hop_index >= -1 && r->hop_index <= 255);
	CHECK(r->last_clean_index >= -1 && r->last_clean_index <= 255);
	CHECK(r->sa_wscale >= -1 && r->sa_wscale <= 255);
}

static int
fault(void *arg, const char *line)
{
	(*(int *)arg)++;
	check_line(line);
	return 0;
}

static void
fault_fn(void *arg, const char *line)
{
	fault(arg, line);
}

/* export's rows, and the hosts show is asked for */
struct reader {
	struct history *h;
	struct csv csv;
	struct json j;
	char *hosts[HOSTS];
	int nhosts;
	unsigned rows;
};

static void
add_host(struct reader *x, const char *host)
{
	if (host[0] == '\0' || x->nhosts == HOSTS)
		return;
	for (int i = 0; i < x->nhosts; i++)
		if (strcmp(x->hosts[i], host) == 0)
			return;
	CHECK((x->hosts[x->nhosts++] = strdup(host)) != NULL);
}

static int
export_row(void *arg, const struct history_row *r)
{
	struct reader *x = arg;
	uint8_t *ev = NULL;
	size_t evlen = 0;
	int rc;

	check_row(r);
	CHECK(r->count >= 1 || r->count == -1 || r->count == 0);
	x->rows++;
	export_csv_row(&x->csv, r);
	csv_clear(&x->csv);
	export_json_row(&x->j, r);
	json_clear_text(&x->j);
	add_host(x, r->address);
	add_host(x, r->target);
	/* --pcap: the evidence read back and made a pcapng */
	rc = history_evidence(x->h, r->path_result_id, &ev, &evlen);
	CHECK(rc >= -1 && rc <= 1);
	if (rc == 0) {
		static uint8_t room[EXPORT_PCAP_MAX];
		struct pcapng_buf b = { room, 0, sizeof(room), false };
		struct json m;
		const char *why = NULL;
		int n = 0;

		CHECK(ev != NULL && evlen > 0);
		json_init(&m);
		json_array_begin(&m);
		if (export_pcap_build(r, ev, evlen, &b, &n, &why) != 0)
			CHECK(why != NULL);
		else
			CHECK(n >= 1 && b.len <= sizeof(room) && !b.overflow);
		export_pcap_manifest(&m, r, n > 0 ? "x.pcapng" : NULL, n, why);
		json_array_end(&m);
		CHECK(json_ok(&m));
		json_free(&m);
	} else if (rc == -1)
		check_err(history_error(x->h));
	free(ev);
	return x->rows >= 64;		/* a file of many rows: enough of them */
}

/* show's fold of a host, its rows and findings checked on the way */
struct show_run {
	struct show_fold fold;
	struct show_series *series;	/* whose findings come */
};

static int
show_row(void *arg, const struct history_row *r)
{
	struct show_run *run = arg;

	check_row(r);
	show_fold_add(&run->fold, r);
	return 0;
}

static int
show_finding(void *arg, const struct history_finding *hf)
{
	struct show_run *run = arg;

	CHECK(hf->kind != NULL && hf->hop_index >= -1 && hf->hop_index <= 255);
	show_fold_finding(&run->fold, run->series, hf);
	return 0;
}

static void
show_alert(void *arg, const struct store_alert *a)
{
	CHECK(a->vantage != NULL && a->kind != NULL && a->address != NULL &&
	    a->state != NULL && a->scales != NULL);
	if (strcmp(a->kind, "path") == 0)
		show_fold_alert(arg, a->address, (int)a->port, a->vantage, a->state, a->scales,
		    a->hop_index, a->hop_address, a->incident, a->raised_ns);
}

/* scaleprobe show HOST: the fold, its findings and alerts, text and JSON. */
static void
show_host(struct store *st, struct history *h, const char *host)
{
	struct history_query q = { host, -1, INT64_MIN, NULL };
	struct show_run run = { { NULL, 0, 0, false, NULL, 0 }, NULL };
	struct show_fold *fold = &run.fold;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (history_show(h, &q, show_row, &run) != 0) {
		check_err(history_error(h));
		goto done;
	}
	for (size_t i = 0; i < fold->n; i++) {
		run.series = &fold->v[i];
		if (history_findings(h, run.series->last.path_result_id,
		    run.series->last.scale_idx, show_finding, &run) != 0) {
			check_err(history_error(h));
			goto done;
		}
	}
	if (store_alert_each(st, NULL, show_alert, fold) < 0) {
		check_err(store_error(st));
		goto done;
	}
	CHECK(!fold->failed);
	CHECK((f = open_memstream(&text, &len)) != NULL);
	show_render_text(f, fold);
	CHECK(fclose(f) == 0);
	check_text(text, len);
	free(text);
	{
		struct json j;

		json_init(&j);
		for (size_t i = 0; i < fold->n;) {
			size_t next;

			json_reset(&j);
			next = show_render_json(&j, fold, i);
			CHECK(next > i && next <= fold->n);
			CHECK(json_ok(&j));
			i = next;
		}
		json_free(&j);
	}
done:
	show_fold_free(fold);
}

/* scaleprobe report: every result, folded and written in each format. */
static void
report_file(void)
{
	struct report rep;
	char err[512] = "";
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	CHECK(report_begin(&rep, INT64_MIN, INT64_MAX, NULL) == 0);
	rc = report_query(file, INT64_MIN, INT64_MAX, report_add, &rep, err, sizeof(err));
	CHECK(rc == 0 || rc == -1);
	if (rc == -1) {
		check_err(err);
		report_free(&rep);
		return;
	}
	CHECK(report_end(&rep) == 0);
	CHECK((f = open_memstream(&text, &len)) != NULL);
	CHECK(report_text(&rep, f) == 0);
	CHECK(fclose(f) == 0);
	check_text(text, len);
	free(text);
	CHECK(report_json(&rep, devnull) == 0);
	CHECK(report_html(&rep, devnull) == 0);
	report_free(&rep);
}

/* Whether the file holds exactly data. */
static int
same_file(const uint8_t *data, size_t size)
{
	uint8_t *back = malloc(size + 1);
	FILE *f = fopen(file, "rb");
	size_t n = 0;
	int same;

	CHECK(back != NULL && f != NULL);
	n = fread(back, 1, size + 1, f);
	fclose(f);
	same = n == size && (size == 0 || memcmp(back, data, size) == 0);
	free(back);
	return same;
}

int
LLVMFuzzerTestOneInput(const uint8_t *input, size_t insize)
{
	char err[STORE_ERRLEN] = "";
	struct store *st;
	struct reader x;
	uint8_t *data;
	size_t size;
	FILE *f;
	int n, faults = 0;
	bool wal;

	CHECK((data = malloc(insize + template_max + 64)) != NULL);
	size = store_edit(input, insize, data);
	wal = size >= 20 && data[19] == 2;
	for (int i = 0; i < 3; i++)
		unlink(beside[i]);
	CHECK((f = fopen(file, "wb")) != NULL);
	CHECK(size == 0 || fwrite(data, 1, size, f) == size);
	CHECK(fclose(f) == 0);

	/* scaleprobe db check (quick when the size is odd: both are asked) */
	n = store_check(file, size % 2 == 1, fault_fn, &faults, err, sizeof(err));
	CHECK(n == -1 || n == faults);
	if (n == -1)
		check_err(err);

	/* show and export */
	memset(&x, 0, sizeof(x));
	if ((st = store_open(file, STORE_READ, NULL, err, sizeof(err))) == NULL) {
		check_err(err);
		goto report;
	}
	if ((x.h = history_open(st, err, sizeof(err))) == NULL) {
		check_err(err);
		store_close(st, NULL, 0);
		goto report;
	}
	json_init(&x.j);
	{
		struct history_export_query q = { { "ok", "unsupported", "rewritten", "stripped",
		    "syn-dropped", "closed", "filtered", "unreachable", "inconclusive" }, 9,
		    INT64_MIN, NULL };
		struct history_export_query problems = { { "rewritten", "stripped",
		    "syn-dropped" }, 3, INT64_MIN, NULL };

		export_csv_header(&x.csv);
		json_array_begin(&x.j);
		if (history_export(x.h, &q, export_row, &x) == -1)
			check_err(history_error(x.h));
		if (history_export(x.h, &problems, export_row, &x) == -1)
			check_err(history_error(x.h));
		json_array_end(&x.j);
		CHECK(json_ok(&x.j));
		CHECK(!x.csv.failed);
	}
	for (int i = 0; i < x.nhosts; i++)
		show_host(st, x.h, x.hosts[i]);
	show_host(st, x.h, "198.51.100.1");	/* a host it does not hold */
	for (int i = 0; i < x.nhosts; i++)
		free(x.hosts[i]);
	csv_free(&x.csv);
	json_free(&x.j);
	history_close(x.h);
	CHECK(store_close(st, err, sizeof(err)) == 0);
report:
	report_file();

	/* readers never write */
	CHECK(same_file(data, size));
	if (!wal)
		for (int i = 0; i < 3; i++)
			CHECK(access(beside[i], F_OK) != 0);
	free(data);
	return 0;
}

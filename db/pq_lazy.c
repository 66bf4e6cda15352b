/*
 * pq_lazy.c -- libpq loaded when a PostgreSQL store is first connected to,
 * not at every start.  Linked, libpq brings libssl, Kerberos, GSSAPI and
 * LDAP into every scaleprobe and scaleprobed process, about 5 MiB of
 * resident memory (4.7 MiB for `scaleprobe --help` without, 10 MiB with)
 * that a store in a file never needs.  So the programs do not link it:
 * the libpq functions the engine calls are defined here, each resolved
 * from libpq.so.5 (dlopen) on the first connect and called through.
 *
 * PQconnectdbParams returns NULL when the library cannot be loaded, as
 * libpq does when out of memory; pq_lazy_error() then says why.  Every
 * other function is only reached with a connection or a result, so after
 * a connect succeeded; PQfinish and PQclear take NULL, as libpq's do.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <libpq-fe.h>

#include "pq_lazy.h"

#define PQ_SONAME "libpq.so.5"

static struct {
	PGconn *(*connectdbParams)(const char *const *, const char *const *, int);
	ConnStatusType (*status)(const PGconn *);
	char *(*errorMessage)(const PGconn *);
	void (*finish)(PGconn *);
	void (*reset)(PGconn *);
	PQnoticeProcessor (*setNoticeProcessor)(PGconn *, PQnoticeProcessor, void *);
	PGresult *(*exec)(PGconn *, const char *);
	PGresult *(*execParams)(PGconn *, const char *, int, const Oid *,
	    const char *const *, const int *, const int *, int);
	int (*sendQueryParams)(PGconn *, const char *, int, const Oid *,
	    const char *const *, const int *, const int *, int);
	int (*setSingleRowMode)(PGconn *);
	PGresult *(*getResult)(PGconn *);
	ExecStatusType (*resultStatus)(const PGresult *);
	char *(*resultErrorMessage)(const PGresult *);
	void (*clear)(PGresult *);
	int (*ntuples)(const PGresult *);
	int (*nfields)(const PGresult *);
	Oid (*ftype)(const PGresult *, int);
	int (*fformat)(const PGresult *, int);
	char *(*getvalue)(const PGresult *, int, int);
	int (*getlength)(const PGresult *, int, int);
	int (*getisnull)(const PGresult *, int, int);
	char *(*cmdTuples)(PGresult *);
} pq;

static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static int pq_ok;
static char pq_why[256];

/* dlsym into a function pointer: POSIX guarantees the conversion */
#define PQ_SYM(field, name) do { \
	void *p_ = dlsym(h, name); \
	if (p_ == NULL) { \
		snprintf(pq_why, sizeof(pq_why), "%s: no %s", PQ_SONAME, name); \
		return; \
	} \
	*(void **)&pq.field = p_; \
} while (0)

static void
pq_load(void)
{
	void *h = dlopen(PQ_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL) {
		const char *e = dlerror();

		snprintf(pq_why, sizeof(pq_why), "cannot load %s (Debian package libpq5): %s",
		    PQ_SONAME, e != NULL ? e : "unknown error");
		return;
	}
	PQ_SYM(connectdbParams, "PQconnectdbParams");
	PQ_SYM(status, "PQstatus");
	PQ_SYM(errorMessage, "PQerrorMessage");
	PQ_SYM(finish, "PQfinish");
	PQ_SYM(reset, "PQreset");
	PQ_SYM(setNoticeProcessor, "PQsetNoticeProcessor");
	PQ_SYM(exec, "PQexec");
	PQ_SYM(execParams, "PQexecParams");
	PQ_SYM(sendQueryParams, "PQsendQueryParams");
	PQ_SYM(setSingleRowMode, "PQsetSingleRowMode");
	PQ_SYM(getResult, "PQgetResult");
	PQ_SYM(resultStatus, "PQresultStatus");
	PQ_SYM(resultErrorMessage, "PQresultErrorMessage");
	PQ_SYM(clear, "PQclear");
	PQ_SYM(ntuples, "PQntuples");
	PQ_SYM(nfields, "PQnfields");
	PQ_SYM(ftype, "PQftype");
	PQ_SYM(fformat, "PQfformat");
	PQ_SYM(getvalue, "PQgetvalue");
	PQ_SYM(getlength, "PQgetlength");
	PQ_SYM(getisnull, "PQgetisnull");
	PQ_SYM(cmdTuples, "PQcmdTuples");
	pq_ok = 1;
}

const char *
pq_lazy_error(void)
{
	return pq_why[0] != '\0' ? pq_why : "out of memory";
}

/* Reached only with a connection or a result: libpq is loaded. */
static void
pq_need(void)
{
	if (!pq_ok)
		abort();
}

PGconn *
PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname)
{
	(void)pthread_once(&pq_once, pq_load);
	if (!pq_ok)
		return NULL;
	return pq.connectdbParams(keywords, values, expand_dbname);
}

void
PQfinish(PGconn *conn)
{
	if (conn != NULL) {
		pq_need();
		pq.finish(conn);
	}
}

void
PQclear(PGresult *res)
{
	if (res != NULL) {
		pq_need();
		pq.clear(res);
	}
}

ConnStatusType PQstatus(const PGconn *c) { pq_need(); return pq.status(c); }
char *PQerrorMessage(const PGconn *c) { pq_need(); return pq.errorMessage(c); }
void PQreset(PGconn *c) { pq_need(); pq.reset(c); }
PQnoticeProcessor
PQsetNoticeProcessor(PGconn *c, PQnoticeProcessor p, void *arg)
{
	pq_need();
	return pq.setNoticeProcessor(c, p, arg);
}
PGresult *PQexec(PGconn *c, const char *q) { pq_need(); return pq.exec(c, q); }
PGresult *
PQexecParams(PGconn *c, const char *q, int n, const Oid *types, const char *const *vals,
    const int *lens, const int *fmts, int rfmt)
{
	pq_need();
	return pq.execParams(c, q, n, types, vals, lens, fmts, rfmt);
}
int
PQsendQueryParams(PGconn *c, const char *q, int n, const Oid *types, const char *const *vals,
    const int *lens, const int *fmts, int rfmt)
{
	pq_need();
	return pq.sendQueryParams(c, q, n, types, vals, lens, fmts, rfmt);
}
int PQsetSingleRowMode(PGconn *c) { pq_need(); return pq.setSingleRowMode(c); }
PGresult *PQgetResult(PGconn *c) { pq_need(); return pq.getResult(c); }
ExecStatusType PQresultStatus(const PGresult *r) { pq_need(); return pq.resultStatus(r); }
char *PQresultErrorMessage(const PGresult *r) { pq_need(); return pq.resultErrorMessage(r); }
int PQntuples(const PGresult *r) { pq_need(); return pq.ntuples(r); }
int PQnfields(const PGresult *r) { pq_need(); return pq.nfields(r); }
Oid PQftype(const PGresult *r, int f) { pq_need(); return pq.ftype(r, f); }
int PQfformat(const PGresult *r, int f) { pq_need(); return pq.fformat(r, f); }
char *PQgetvalue(const PGresult *r, int t, int f) { pq_need(); return pq.getvalue(r, t, f); }
int PQgetlength(const PGresult *r, int t, int f) { pq_need(); return pq.getlength(r, t, f); }
int PQgetisnull(const PGresult *r, int t, int f) { pq_need(); return pq.getisnull(r, t, f); }
char *PQcmdTuples(PGresult *r) { pq_need(); return pq.cmdTuples(r); }

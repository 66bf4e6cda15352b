/*
 * upload_forget.c -- the upload's cursor dropped when the daemon starts
 * without "upload" (upload.h): the cursor holds retention back from every
 * result the shared store has not taken (store_prune.c), which is right
 * while an upload runs and wrong forever once it was taken out of the
 * configuration.  Set again later, the upload starts from the first
 * result the store still holds; the shared store takes each once.
 */
#include <sqlite3.h>
#include <stdio.h>

#include "upload.h"

int
upload_forget(const char *file, int64_t *held, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int rc = -1, step;

	*held = 0;
	if (sqlite3_open_v2(file, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		goto out;
	sqlite3_busy_timeout(db, 5000);
	/* one transaction: the count is of the cursor dropped */
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM path_results WHERE id > "
	    "c.last_id) FROM upload_cursor c WHERE c.id = 1", -1, &s, NULL) != SQLITE_OK)
		goto out;
	if ((step = sqlite3_step(s)) == SQLITE_DONE) {
		rc = 0;		/* no cursor: nothing holds retention back */
		goto out;
	}
	if (step != SQLITE_ROW)
		goto out;
	*held = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	s = NULL;
	if (sqlite3_exec(db, "DELETE FROM upload_cursor; COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto out;
	rc = 1;
out:
	if (rc < 0)
		snprintf(err, errlen, "upload: %.200s: dropping the upload cursor: %s", file,
		    db != NULL ? sqlite3_errmsg(db) : "out of memory");
	sqlite3_finalize(s);
	if (db != NULL && !sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
}

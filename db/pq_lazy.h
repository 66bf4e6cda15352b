/*
 * pq_lazy.h -- libpq loaded on the first connect to a PostgreSQL store
 * (pq_lazy.c): the programs do not link it, so a store in a file does not
 * pay its libraries' memory.
 */
#ifndef SCALEPROBE_PQ_LAZY_H
#define SCALEPROBE_PQ_LAZY_H

/* Why the last PQconnectdbParams returned NULL: libpq could not be loaded
 * (one line naming the library and the package), else "out of memory". */
const char *pq_lazy_error(void);

#endif

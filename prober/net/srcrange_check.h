/*
 * srcrange_check.h -- whether every address of a --source-range is the
 * host's own, on the interface its paths' route leaves by: a probe from an
 * address that is not configured there draws replies that go elsewhere
 * (or to someone else).
 */
#ifndef SCALEPROBE_SRCRANGE_CHECK_H
#define SCALEPROBE_SRCRANGE_CHECK_H

#include <stddef.h>

#include "srcrange.h"

/* 0 when every address of r is configured on ifname (getifaddrs); -1
 * with a one-line reason in err naming the first that is not. */
int srcrange_check(const struct srcrange *r, const char *ifname, char *err, size_t errlen);

#endif

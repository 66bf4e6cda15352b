/*
 * version.h -- the version of scaleprobe and scaleprobed, one place: printed
 * by --version and named in the window test's HTTP request, so an operator
 * who sees it in a log knows what probed.
 */
#ifndef SCALEPROBE_VERSION_H
#define SCALEPROBE_VERSION_H

#define SCALEPROBE_VERSION "0.2.0"

#endif

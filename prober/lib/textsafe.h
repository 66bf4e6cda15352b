/*
 * textsafe.h -- any bytes as text that a terminal shows and cannot be
 * driven by: the one escaping every human-readable output goes through
 * (the store's names, reasons and addresses in show, report and probe's
 * text, the daemon's log lines, status, the HTML report's text).
 *
 * A store is a file anyone may hand over or edit, a device name comes
 * from netlink, a status reply from a socket: none of it may ring, move
 * the cursor, clear the screen, retitle the window or start a line of its
 * own; and a command printed to be pasted must be the command it shows.  What is escaped, in a form that cannot be mistaken for the text:
 *   backslash          "\\"
 *   newline, tab       "\n", "\t"
 *   other C0, DEL      "\xNN"      (ESC is "\x1b")
 *   C1 (U+0080..U+009F, as UTF-8; 8-bit CSI is U+009B)   "\u009b"
 *   the Unicode controls that reorder or break what is shown: U+200E,
 *   U+200F, U+2028, U+2029, U+202A..U+202E, U+2066..U+2069   "\u202e"
 *   a byte that is not part of valid UTF-8 (overlong, surrogate, cut,
 *   above U+10FFFF)    "\xNN", each byte
 * Every other character, UTF-8 included, is kept.  Pure.
 */
#ifndef SCALEPROBE_TEXTSAFE_H
#define SCALEPROBE_TEXTSAFE_H

#include <stddef.h>

/* Room textsafe() needs for n input bytes, with the NUL: at most 4 output
 * bytes per input byte ("\xNN"; "\u009b" is 6 for 2, "\u202e" 6 for 3). */
#define TEXTSAFE_SIZE(n)	(4 * (n) + 1)

enum {
	/* every byte outside 0x20..0x7e as "\xNN" (newline and tab too),
	 * UTF-8 included: for syslog and error lines, log_escape's form */
	TEXTSAFE_ASCII = 1,
	/* newline kept: a text of several lines (a log message, a status
	 * reply); every other control still escaped */
	TEXTSAFE_LINES = 2,
	/* backslash kept: the text is already escaped (a log line whose
	 * parts went through log_escape) and must not be escaped twice */
	TEXTSAFE_KEEP_BACKSLASH = 4,
};

/*
 * src[0..len) (it may hold NULs) into dst as above.  Stops before a whole
 * escape or character that does not fit; always NUL-terminates when
 * dstlen > 0.  Returns dst.
 */
char *textsafe(char *dst, size_t dstlen, const void *src, size_t len, unsigned flags);

/* A NUL-terminated s (NULL as "") with no flags; returns dst. */
const char *textsafe_str(const char *s, char *dst, size_t dstlen);

/*
 * s as one word of a POSIX shell command line that a reader pastes: as it
 * is when it is not empty and every byte is one of A-Z a-z 0-9 and
 * "_@%+=:,./-" (an address, a prefix, a device's name), else in single
 * quotes, each ' as '\'' (Python's shlex.quote).  A byte outside printable
 * ASCII is refused whatever the quoting (a pasted newline runs what
 * follows, a C1 or an escape drives the terminal showing it).  Returns
 * dst, or NULL when s holds such a byte or dst is too small.
 */
const char *textsafe_shell(const char *s, char *dst, size_t dstlen);

#endif

/* resolver/ask.h: what a message advises the user to ask for instead, as a reason code. The
 * resolver writes the facts and names the code; its caller gives the words, since how a user asks
 * (the command line's flags) is cli/'s business: nothing below cli/ and ops/ spells a flag
 * (tests/lint.sh). Plain data: a wp_asks borrows its strings, and lives as long as its caller's
 * tables (static ones). */
#ifndef WP_ASK_H
#define WP_ASK_H

enum wp_ask {
	WP_ASK_CPU = 0, /* the CPU build: a CPU target */
	WP_ASK_ROCM, /* a ROCm build: a ROCm target (its version) */
	WP_ASK_XPU, /* an Intel GPU build: an XPU target */
	WP_ASK_PRE, /* pre-releases allowed */
	WP_ASK_INDEX, /* an index that lists the project */
	WP_ASK_CHANNEL, /* a conda channel that has the package */
	WP_ASK_NO_DEPS, /* only what was asked for, no dependencies */
	WP_ASK_CATALOG, /* another catalog */
	WP_ASK_CUDA, /* a CUDA target, of some version */
	WP_ASK_PYTHON, /* a Python version */
	WP_ASK_INTERPRETER, /* an interpreter, by its path */
	WP_ASK_ROCM_AS, /* the words before a ROCm version the message gives ("give --rocm" 6.4) */
	WP_ASK_PROFILE, /* what writes a profile ("detect --json") */
	WP_ASK_TRUST, /* accepting a file's new bytes once the source is checked */
	WP_ASK_UPDATE, /* reading the indexes and channels into the catalog again */
	WP_ASK_CUDA_AS, /* the words before a CUDA version the message gives ("give --cuda" 12.2) */
	WP_ASK_GPU, /* a GPU named by its product name or compute capability */
	WP_ASK_PAGE_SIZE, /* a larger ceiling on one index page (the session's max_page_bytes) */
	WP_ASK_N
};

/* The words for each, as they follow "ask with ..." or "add its index with ...": the CLI's are
 * "--cuda cpu", "--index URL". */
struct wp_asks {
	const char *words[WP_ASK_N];
};

/* The words for a: from asks, or plain ones ("a CPU target") when asks or its entry is NULL. */
const char *wp_ask_words(const struct wp_asks *asks, enum wp_ask a);

#endif

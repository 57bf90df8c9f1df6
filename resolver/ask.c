/* resolver/ask.c: plain words for what a message advises, where the caller gave none. Pure. */
#include "resolver/ask.h"

#include <stddef.h>

static const char *const plain[WP_ASK_N] = {
	[WP_ASK_CPU] = "a CPU target",
	[WP_ASK_ROCM] = "a ROCm target",
	[WP_ASK_XPU] = "an Intel GPU (XPU) target",
	[WP_ASK_PRE] = "pre-releases allowed",
	[WP_ASK_INDEX] = "an index URL",
	[WP_ASK_CHANNEL] = "a channel URL",
	[WP_ASK_NO_DEPS] = "only what was asked for",
	[WP_ASK_CATALOG] = "another catalog",
	[WP_ASK_CUDA] = "a CUDA version",
	[WP_ASK_PYTHON] = "a Python version",
	[WP_ASK_INTERPRETER] = "its path",
	[WP_ASK_ROCM_AS] = "ask for ROCm",
	[WP_ASK_PROFILE] = "detect",
	[WP_ASK_TRUST] = "accept its new hash",
	[WP_ASK_UPDATE] = "read the indexes again",
	[WP_ASK_CUDA_AS] = "ask for CUDA",
	[WP_ASK_GPU] = "the GPU's name or compute capability",
	[WP_ASK_PAGE_SIZE] = "a larger page size limit",
};

const char *wp_ask_words(const struct wp_asks *asks, enum wp_ask a)
{
	if ((unsigned)a >= WP_ASK_N)
		return "";
	return asks && asks->words[a] ? asks->words[a] : plain[a];
}

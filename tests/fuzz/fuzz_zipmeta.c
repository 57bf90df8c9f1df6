/* tests/fuzz/fuzz_zipmeta.c: libFuzzer target for reading METADATA out of a zip's tail (the Range
 * path). */
#include "tests/fuzz/fuzz.h"

#include "base/err.h"
#include "verify/zipmeta.h"

/* The input is a whole "wheel": the same steps the Range reader takes, on slices of it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_err err = WP_ERR_INIT;
	struct wp_zip_end end;
	size_t win = size < 65536 ? size : 65536;
	const unsigned char *tail = data + size - win;
	if (wp_zip_end_find("f.whl", tail, win, size, &end, &err) < 0)
		return 0;
	if (end.need_more) {
		if (end.need_from > size)
			return 0;
		wp_err_clear(&err);
		if (wp_zip_end_find("f.whl", data + end.need_from, size - end.need_from, size, &end,
				    &err) < 0 ||
		    end.need_more)
			return 0;
	}
	FZ_CHECK(end.cd_offset <= size && end.cd_size <= size - end.cd_offset);
	struct wp_zip_member m;
	wp_err_clear(&err);
	if (wp_zip_find_metadata("f.whl", data + end.cd_offset, (size_t)end.cd_size, &end,
				 "demo-pkg", "1.0", &m, &err) < 0)
		return 0;
	if (m.local_offset >= size)
		return 0;
	size_t at = 0;
	uint64_t need = 0;
	wp_err_clear(&err);
	if (wp_zip_local_data("f.whl", data + m.local_offset, size - (size_t)m.local_offset, &m,
			      &at, &need, &err) < 0 ||
	    !at)
		return 0;
	FZ_CHECK(at + m.comp_size <= size - m.local_offset);
	char *out = NULL;
	size_t out_len = 0;
	wp_err_clear(&err);
	if (wp_zip_member_decode("f.whl", data + m.local_offset + at, (size_t)m.comp_size, &m, &out,
				 &out_len, &err) == 0) {
		FZ_CHECK(out && out_len == m.size && out[out_len] == 0);
		free(out);
	}
	return 0;
}

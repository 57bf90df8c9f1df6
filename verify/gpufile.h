/* verify/gpufile.h: a shared object on disk, read once for its GPU code (verify/fatbin.h's
 * summary). Ownership: *code is the caller's to free. */
#ifndef WP_GPUFILE_H
#define WP_GPUFILE_H

#include "base/err.h"

/* *code gets resolver/gpucode.h's text form ("" none). 0; -WPE_IO when the file cannot be read
 * (*code NULL); -WPE_INTEGRITY when the fatbinary reader refuses a container (*code still holds
 * what it read), both naming path. */
int wp_gpu_code_of_file(const char *path, char **code, struct wp_err *err);

#endif

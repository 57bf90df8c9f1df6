#!/usr/bin/env bash
# tests/cli/t-s3.sh: mirrors published to S3-compatible object storage, against a real Ceph RADOS
# Gateway started here (tests/server/ceph.sh), with real pip reading the bucket anonymously.
. "$(dirname "$0")/../lib.sh"
make_sample
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1

# --- a URL is never taken for a folder --------------------------------------------------------
cd "$TMP" || exit 1
expect_exit 2 "mirror refuses a scheme it does not know" wp mirror gs://bucket/prefix torch==1.8.0 --index "$FINDLINKS"
expect_grep "and says which" "does not know 'gs:' URLs" "$TMP/err"
expect_no_file "no folder named 'gs:'" "$TMP/gs:"
expect_exit 2 "bundle refuses a URL" wp bundle s3://bucket/x.tar.zst torch==1.8.0 --index "$FINDLINKS"
expect_no_file "no folder named 's3:'" "$TMP/s3:"
expect_exit 2 "verify refuses a scheme it does not know" wp verify gs://bucket/prefix
expect_exit 2 "mirror --conda refuses one too" wp mirror --conda ftp://h/channel pytorch
expect_exit 2 "a path that looks like a URL is refused, not made" wp mirror s3:/x torch==1.8.0 --index "$FINDLINKS" --dry-run --cuda 11.2 --python 3.8 --platform linux_x86_64 -q
cd - >/dev/null || exit 1

done_testing

#!/bin/sh
# resolver/data/gen.sh: turns the curated NVIDIA/PyTorch tables (resolver/data/*.tsv) into C for resolver/.
# Usage: gen.sh DATA_DIR > tables.c. POSIX sh and awk only; a malformed row fails the build with FILE:LINE.
set -eu
d=${1:-resolver/data}

# table FILE NCOLS ARRAY TYPE AWK-ROW-FUNCTION
table() {
	awk -F'\t' -v file="$1" -v ncols="$2" -v arr="$3" -v type="$4" '
	function die(msg) { printf "gen.sh: %s:%d: %s\n", file, FNR, msg > "/dev/stderr"; bad = 1; exit 1 }
	# "11.8" -> 118, "12.0" -> 120: every minor so far is one digit
	function v10(s) { if (s !~ /^[0-9]+\.[0-9]$/) die("not M.m: \"" s "\""); split(s, p, "."); return p[1] * 10 + p[2] }
	function drv(s) { if (s == "-") return "NULL"; if (s !~ /^[0-9]+(\.[0-9]+)*$/) die("not a driver version: \"" s "\""); return "\"" s "\"" }
	function str(s) { if (s == "-") return "NULL"; if (s ~ /["\\]/ || s == "") die("bad text: \"" s "\""); return "\"" s "\"" }
	function variant(s) { if (s != "-" && s != "cpu" && s !~ /^cu[0-9][0-9]+$/) die("not cuNNN, cpu or -: \"" s "\""); return str(s) }
	BEGIN { printf "const struct %s %s[] = {\n", type, arr }
	/^#/ || /^[ \t]*$/ { next }
	{
		if (NF < ncols) die("expected " ncols " columns, got " NF)
		row()
	}
	END {
		if (bad) exit 1
		printf "};\nconst size_t %s_len = sizeof(%s) / sizeof(%s[0]);\n\n", arr, arr, arr
	}
	'"$5" "$d/$1"
}

echo "/* generated from the resolver/data/ TSV files by resolver/data/gen.sh; do not edit (see resolver/data/PROVENANCE.md) */"
echo '#include "resolver/data/tables.h"'
echo

table gpu_archs.tsv 5 wp_tbl_archs wp_tbl_arch '
function row() {
	if ($2 !~ /^[A-Za-z]+$/) die("bad family")
	printf "\t{ %d, \"%s\", %d, %d },\n", v10($1), $2, v10($3), $4 == "-" ? 0 : v10($4)
}'

table cuda_drivers.tsv 4 wp_tbl_drivers wp_tbl_driver '
function row() { printf "\t{ %d, %s, %s },\n", v10($1), drv($2), drv($3) }'

table cuda_minor_compat.tsv 4 wp_tbl_compat wp_tbl_compat '
function row() {
	if ($1 !~ /^[0-9]+$/) die("bad major")
	printf "\t{ %d, %s, %s },\n", $1, drv($2), drv($3)
}'

table torch_arch_lists.tsv 5 wp_tbl_arch_lists wp_tbl_arch_list '
function row() {
	if ($1 !~ /^[0-9]+\.[0-9]+$/) die("bad release")
	if ($3 != "linux-x86_64" && $3 != "linux-aarch64" && $3 != "windows") die("bad platform family")
	if ($4 !~ /^[0-9]+\.[0-9](a|f|\+PTX)?(;[0-9]+\.[0-9](a|f|\+PTX)?)*$/) die("bad arch list")
	key = $1 " " $2 " " $3
	if (key in seen) die("duplicate row " key)
	seen[key] = 1
	printf "\t{ \"%s\", %d, \"%s\", \"%s\" },\n", $1, v10($2), $3, $4
}'

table gpu_names.tsv 3 wp_tbl_gpu_names wp_tbl_gpu_name '
function row() { printf "\t{ %s, %d },\n", str($1), v10($2) }'

table pypi_torch_defaults.tsv 6 wp_tbl_pypi_torch wp_tbl_pypi '
function row() {
	if ($1 !~ /^[0-9]+\.[0-9]+\.[0-9]+$/) die("bad version")
	printf "\t{ \"%s\", { %s, %s, %s, %s } },\n", $1, variant($2), variant($3), variant($4), variant($5)
}'

table gpu_pci_ids.tsv 4 wp_tbl_gpu_pci wp_tbl_gpu_pci '
function row() {
	if ($1 !~ /^[0-9A-F][0-9A-F][0-9A-F][0-9A-F]$/) die("not a 4-digit upper-case PCI device id: \"" $1 "\"")
	if (prev != "" && $1 <= prev) die("PCI ids not ascending at " $1)
	prev = $1
	printf "\t{ 0x%s, %s, %d },\n", $1, str($2), v10($3)
}'

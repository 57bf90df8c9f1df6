# mk/hardening.mk: the attack matrix (issue 18) on its own, and its crash loops at full count.
#   make attacks   tests/cli/t-attacks*.sh, t-slow, t-hostile, t-crash (all in `make test` too)
#   make crash     t-crash with 100 kill -9 of `update --conda` and of `pick -d` (make test: 30 each)
# (The NVIDIA tables fuzz_profile reaches are in every fuzz library now: mk/fuzz.mk links GEN_SRC.)
ATTACK_FILES := t-attacks t-slow t-conda-attacks t-hostile t-crash t-attacks-mirror
.PHONY: attacks crash
attacks: $(BUILD)/wheelpick
	@WP_RESULTS=$(RESULTS) WHEELPICK=$(abspath $(BUILD)/wheelpick) WP_CLI_ONLY="$(ATTACK_FILES)" tests/cli/run.sh
crash: $(BUILD)/wheelpick
	@WP_RESULTS=$(RESULTS) WHEELPICK=$(abspath $(BUILD)/wheelpick) WP_CRASH_KILLS=100 WP_CLI_ONLY="t-crash" tests/cli/run.sh


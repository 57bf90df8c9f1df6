# mk/hardening.mk: the attack matrix (issue 18) on its own, and its crash loops at full count.
#   make attacks   tests/cli/t-attacks*.sh, t-slow, t-hostile, t-crash (all in `make test` too)
#   make crash     t-crash with 100 kill -9 of `update --conda` and of `pick -d` (make test: 30 each)
# And the fuzz harness of target profiles (tests/fuzz/fuzz_profile.c), which reaches the NVIDIA
# tables (compiled from resolver/data/) that the other harnesses never need.
ATTACK_FILES := t-attacks t-slow t-conda-attacks t-hostile t-crash
.PHONY: attacks crash
attacks: $(BUILD)/wheelpick
	@WP_RESULTS=$(RESULTS) WHEELPICK=$(abspath $(BUILD)/wheelpick) WP_CLI_ONLY="$(ATTACK_FILES)" tests/cli/run.sh
crash: $(BUILD)/wheelpick
	@WP_RESULTS=$(RESULTS) WHEELPICK=$(abspath $(BUILD)/wheelpick) WP_CRASH_KILLS=100 WP_CLI_ONLY="t-crash" tests/cli/run.sh

$(FUZZ_RDIR)/replay_profile: $(BUILD)/gen/nvidia_tables.o
$(FUZZ_RDIR)/replay_profile: LDLIBS += $(abspath $(BUILD)/gen/nvidia_tables.o)
$(FUZZ_BUILD)/fuzz_profile: $(BUILD)/gen/nvidia_tables.o
$(FUZZ_BUILD)/fuzz_profile: LDLIBS += $(abspath $(BUILD)/gen/nvidia_tables.o)

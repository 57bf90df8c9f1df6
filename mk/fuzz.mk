# mk/fuzz.mk: libFuzzer targets for every parser (`make fuzz`), and a plain replay of their corpora (`make fuzz-replay`).
#
#   make fuzz [FUZZ_SECONDS=30] [FUZZ_TARGETS="version marker"]
#       clang -fsanitize=fuzzer,address,undefined builds into build-fuzz/; each target runs for
#       FUZZ_SECONDS over tests/fuzz/corpus/NAME/; new inputs go to build-fuzz/run/new/NAME/,
#       crashes to build-fuzz/run/artifacts/NAME/, never into the repository.
#   make fuzz-merge      fold the new inputs that add coverage into tests/fuzz/corpus/ (review sizes)
#   make fuzz-replay     gcc + ASan/UBSan driver feeds every corpus file to each harness; what
#                        `make test` runs. Counts go to $(BUILD)/test-results/fuzz.count.
FUZZ_SRC      := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_ALL      := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_TARGETS  ?= $(FUZZ_ALL)
FUZZ_SECONDS  ?= 30
FUZZ_CORPUS   := tests/fuzz/corpus
FUZZ_CC       ?= clang
FUZZ_BUILD    ?= build-fuzz
FUZZ_WORK     ?= $(FUZZ_BUILD)/run
# merge on edges only: a few dozen files per target instead of hundreds
FUZZ_MERGE_FLAGS ?= -use_counters=0
# clang 14 does not know -Wno-format-truncation; the library is built without -Werror here since
# clang warns where gcc (the project's compiler) does not; the harnesses keep -Werror.
FUZZ_WARN     := -std=c17 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter \
                 -Wno-unknown-warning-option -Wno-format-truncation
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS   := $(FUZZ_WARN) -g -O1 $(FUZZ_SAN) -I. $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(SONAMES) -DWP_ISAL=$(ISAL)
# the generated tables too: harnesses that reach resolver/target.c (fuzz_variants) need gpu.c's data
FUZZ_LIB_OBJ  := $(LIB_SRC:%.c=$(FUZZ_BUILD)/obj/%.o) $(GEN_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_BINS     := $(FUZZ_ALL:%=$(FUZZ_BUILD)/fuzz_%)

# The replay build: gcc, the project's flags, ASan and UBSan, its own copy of the library.
FUZZ_RDIR     := $(BUILD)/fuzz-replay
FUZZ_RCFLAGS   = $(CFLAGS) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_RLIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_RDIR)/%.o) $(GEN_SRC:%.c=$(FUZZ_RDIR)/%.o)
FUZZ_RBINS    := $(FUZZ_ALL:%=$(FUZZ_RDIR)/replay_%)

.PHONY: fuzz fuzz-build fuzz-merge fuzz-replay fuzz-replay-build fuzz-clean

fuzz: fuzz-build
	@tests/fuzz/fuzz.sh $(FUZZ_BUILD) $(FUZZ_CORPUS) $(FUZZ_WORK) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/libwp-fuzz.a: $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_BUILD)/libwp-fuzz.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -fsanitize=fuzzer -o $@ $< $(FUZZ_BUILD)/libwp-fuzz.a $(LDLIBS)

fuzz-merge: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  [ -d $(FUZZ_WORK)/new/$$t ] || continue; \
	  echo "fuzz-merge: $$t"; \
	  $(FUZZ_BUILD)/fuzz_$$t -merge=1 $(FUZZ_MERGE_FLAGS) $(FUZZ_CORPUS)/$$t $(FUZZ_WORK)/new/$$t 2>&1 | grep -E 'MERGE-OUTER: [0-9]+ new files' ; \
	done; du -sh $(FUZZ_CORPUS)

fuzz-replay-build: $(FUZZ_RBINS)

$(FUZZ_RDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_RCFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_RDIR)/libwp-replay.a: $(FUZZ_RLIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_RDIR)/replay.o: tests/fuzz/replay.c
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_RCFLAGS) -c $< -o $@

$(FUZZ_RDIR)/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_RDIR)/replay.o $(FUZZ_RDIR)/libwp-replay.a
	$(CC) $(FUZZ_RCFLAGS) $(LDFLAGS) -fsanitize=address,undefined -o $@ $< $(FUZZ_RDIR)/replay.o \
	  $(FUZZ_RDIR)/libwp-replay.a $(LDLIBS)

fuzz-replay: fuzz-replay-build
	@WP_RESULTS=$(RESULTS) tests/fuzz/replay.sh $(FUZZ_RDIR) $(FUZZ_CORPUS) $(FUZZ_ALL)

fuzz-clean:
	rm -rf $(FUZZ_BUILD) $(FUZZ_RDIR)

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_RLIB_OBJ:.o=.d)

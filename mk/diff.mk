# mk/diff.mk: differential tests against pip's vendored packaging and packaging HEAD (vendored) (`make difftest`, part of `make test`).
#   - PEP 440 versions and specifiers: tests/diff/pep440_diff.py asks pip and our driver the same
#     thousands of generated questions;
#   - PEP 440 where wheelpick follows packaging HEAD (=== as text, >V/<V with a pre/dev/post V):
#     tests/diff/pep440_head_diff.py asks the vendored packaging HEAD (tests/diff/packaging_head/);
#   - PEP 508 markers: tests/diff/marker_head_diff.py asks packaging HEAD to parse, print and
#     evaluate generated markers (whitespace: space and tab only) on twelve targets;
#   - conda version order: tests/diff/conda_version_diff.py orders real and generated pairs with
#     conda's own version.py (vendored, tests/diff/conda_ref/);
#   - PEP 825 label order: tests/diff/variants_diff.py asks the vendored variantlib
#     (tests/diff/variantlib_ref/) to order generated static-namespace variants.json files;
#   - TOML (for pylock.toml): tests/diff/toml_diff.py reads the real locks and generated documents
#     with index/toml and Python's tomllib;
#   - PEP 751 (pylock.toml read and selected from): tests/diff/pylock_diff.py asks the vendored
#     packaging HEAD's Pylock.from_dict and Pylock.select about real and generated locks;
#   - PEP 425 tags: tests/diff/tags_diff.py --check regenerates the tag fixtures from packaging HEAD
#     and fails when they differ from the committed ones that test_tags compares us against;
#   - wheel installs: tests/diff/installer_diff.py installs pypa/installer's vectors with it (Debian's
#     python3-installer) and with `wheelpick install`, and compares the trees.
DIFF_DRIVER := $(BUILD)/tests/pep440_driver

$(DIFF_DRIVER): tests/diff/pep440_driver.c $(BUILD)/libwp.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libwp.a $(LDLIBS)

# index/toml against Python's tomllib.
TOML_DRIVER := $(BUILD)/tests/toml_driver
$(TOML_DRIVER): tests/diff/toml_driver.c $(BUILD)/libwp.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libwp.a $(LDLIBS)

# index/pylock against packaging HEAD's Pylock.from_dict and Pylock.select.
PYLOCK_DRIVER := $(BUILD)/tests/pylock_driver
$(PYLOCK_DRIVER): tests/diff/pylock_driver.c $(BUILD)/libwp.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libwp.a $(LDLIBS)

# resolver/wheelvariant's PEP 825 order against variantlib.
VARIANTS_DRIVER := $(BUILD)/tests/variants_driver
$(VARIANTS_DRIVER): tests/diff/variants_driver.c $(BUILD)/libwp.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libwp.a $(LDLIBS)

.PHONY: difftest
difftest: $(DIFF_DRIVER) $(TOML_DRIVER) $(PYLOCK_DRIVER) $(VARIANTS_DRIVER) $(BUILD)/wheelpick
	@pass=0; fail=0; \
	if python3 tests/diff/pep440_diff.py --driver $(DIFF_DRIVER) --count $${DIFF_COUNT:-2000} >$(RESULTS)/diff-pep440.log 2>&1; \
	then pass=$$((pass+1)); echo "ok    pep440 differential ($$(tail -1 $(RESULTS)/diff-pep440.log))"; \
	else fail=$$((fail+1)); echo "FAIL  pep440 differential"; tail -20 $(RESULTS)/diff-pep440.log; fi; \
	if python3 tests/diff/pep440_head_diff.py --driver $(DIFF_DRIVER) --count $${DIFF_COUNT:-2000} >$(RESULTS)/diff-pep440-head.log 2>&1; \
	then pass=$$((pass+1)); echo "ok    pep440 differential, packaging HEAD ($$(tail -1 $(RESULTS)/diff-pep440-head.log))"; \
	else fail=$$((fail+1)); echo "FAIL  pep440 differential, packaging HEAD"; tail -20 $(RESULTS)/diff-pep440-head.log; fi; \
	if python3 tests/diff/marker_head_diff.py --driver $(DIFF_DRIVER) --count $${DIFF_COUNT:-2000} >$(RESULTS)/diff-marker-head.log 2>&1; \
	then pass=$$((pass+1)); echo "ok    marker differential, packaging HEAD ($$(tail -1 $(RESULTS)/diff-marker-head.log))"; \
	else fail=$$((fail+1)); echo "FAIL  marker differential, packaging HEAD"; tail -20 $(RESULTS)/diff-marker-head.log; fi; \
	if python3 tests/diff/conda_version_diff.py --driver $(DIFF_DRIVER) >$(RESULTS)/diff-conda-version.log 2>&1; \
	then pass=$$((pass+1)); echo "ok    conda version differential ($$(tail -1 $(RESULTS)/diff-conda-version.log))"; \
	else fail=$$((fail+1)); echo "FAIL  conda version differential"; tail -20 $(RESULTS)/diff-conda-version.log; fi; \
	if python3 tests/diff/variants_diff.py --driver $(VARIANTS_DRIVER) >$(RESULTS)/diff-variants.log 2>&1; \
	then pass=$$((pass+1)); echo "ok    PEP 825 order differential ($$(tail -1 $(RESULTS)/diff-variants.log))"; \
	else fail=$$((fail+1)); echo "FAIL  PEP 825 order differential"; tail -20 $(RESULTS)/diff-variants.log; fi; \
	if python3 tests/diff/toml_diff.py --driver $(TOML_DRIVER) tests/fixtures/real/pylock/*.toml >$(RESULTS)/diff-toml.log 2>&1; \
	then pass=$$((pass+1)); echo "ok    toml differential ($$(tail -1 $(RESULTS)/diff-toml.log))"; \
	else fail=$$((fail+1)); echo "FAIL  toml differential"; tail -20 $(RESULTS)/diff-toml.log; fi; \
	if python3 tests/diff/pylock_diff.py --driver $(PYLOCK_DRIVER) tests/fixtures/real/pylock/*.toml >$(RESULTS)/diff-pylock.log 2>&1; \
	then pass=$$((pass+1)); echo "ok    pylock differential ($$(tail -1 $(RESULTS)/diff-pylock.log))"; \
	else fail=$$((fail+1)); echo "FAIL  pylock differential"; tail -20 $(RESULTS)/diff-pylock.log; fi; \
	if python3 tests/diff/tags_diff.py --check >$(RESULTS)/diff-tags.log 2>&1; \
	then pass=$$((pass+1)); echo "ok    tags differential ($$(tail -1 $(RESULTS)/diff-tags.log))"; \
	else fail=$$((fail+1)); echo "FAIL  tags differential"; tail -20 $(RESULTS)/diff-tags.log; fi; \
	if python3 tests/diff/installer_diff.py --wheelpick $(BUILD)/wheelpick >$(RESULTS)/diff-installer.log 2>&1; \
	then pass=$$((pass+1)); echo "ok    installer differential ($$(tail -1 $(RESULTS)/diff-installer.log))"; \
	else fail=$$((fail+1)); echo "FAIL  installer differential"; tail -20 $(RESULTS)/diff-installer.log; fi; \
	mkdir -p $(RESULTS); echo "$$pass $$fail 0" >$(RESULTS)/diff.count; \
	echo "difftest: $$pass passed, $$fail failed"; \
	[ $$fail = 0 ] || [ "$${WP_DEFER_FAIL:-0}" = 1 ]

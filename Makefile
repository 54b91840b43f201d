# Limelight: one command for the demo, one for the tests. Both install what they need.
PREFIX ?= /usr/local
SWIFT ?= swift
# Release programs carry the Swift runtime and Foundation linked in: a start then skips resolving
# thousands of symbols across a dozen shared libraries, which was half of a `limelight search`.
# (`swift build`, for development and the tests, links them as shared libraries.)
# They are also linked as position-dependent executables: a PIE of this size carries some 78,000
# relative relocations that the loader applies on every start, copying each page they touch.
# `--no-export-dynamic` undoes the runtime's `-export-dynamic` (no one looks our symbols up by name),
# and no `$ORIGIN` run path: the programs load only system libraries.
RELEASE ?= -c release --static-swift-stdlib -Xlinker --no-pie -Xlinker --no-export-dynamic --disable-local-rpath
# SQLite and zlib are linked in as well, from their static archives: the shared libsqlite3 binds
# some 1,600 of its own symbols on every start (its table of API functions), 40% of the loader's
# symbol look-ups in a `limelight search`. The package finds both through pkg-config, whose files
# name the system's folder, where the linker takes the `.so`; so the release build reads
# pkg-config files of its own (`static-libs`), which name a folder holding only the archives.
STATIC_LIBS = $(CURDIR)/.build/static-libs
RELEASE_ENV = PKG_CONFIG_PATH="$(STATIC_LIBS)$${PKG_CONFIG_PATH:+:$$PKG_CONFIG_PATH}"

.PHONY: deps static-libs build build-release test test-tsan test-asan demo demo-release install clean bench fuzz

deps:
	@scripts/ensure-deps.sh

build: deps
	SWIFT=$(SWIFT) scripts/swift-build.sh

test: deps
	SWIFT=$(SWIFT) scripts/swift-build.sh --build-tests
	$(SWIFT) test --skip-build

# The tests under ThreadSanitizer or AddressSanitizer (with LeakSanitizer), each in a build folder
# of its own; slower than `make test` (TSan several times), so not part of it. FILTER=Suite|Other
# runs some suites. Reports go to stderr and fail the run; the suppression files say why each
# entry is not this project's defect.
SANITIZER_FILTER = $(if $(FILTER),--filter '$(FILTER)')

test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 suppressions=$(CURDIR)/scripts/tsan-suppressions.txt $$TSAN_OPTIONS" \
	  $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan $(SANITIZER_FILTER)

test-asan: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	ASAN_OPTIONS="detect_leaks=1 $$ASAN_OPTIONS" LSAN_OPTIONS="suppressions=$(CURDIR)/scripts/lsan-suppressions.txt $$LSAN_OPTIONS" \
	  $(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan $(SANITIZER_FILTER)

demo: build
	@scripts/demo.sh

# The same demo with the release programs, linked as `make install` links them: what users run.
demo-release: build-release
	@LIMELIGHT_BIN="$$($(SWIFT) build $(RELEASE) --show-bin-path)" scripts/demo.sh

clean:
	rm -rf .build .build-tsan .build-asan

# Installs programs, the importer, share/ files, man pages and shell completions under PREFIX.
install: build-release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share
	for p in limelight limelightd limelight-search-provider cookbook cookbook-importer; do install -m 0755 "$$($(SWIFT) build $(RELEASE) --show-bin-path)/$$p" $(DESTDIR)$(PREFIX)/bin/; done
	cd share && find limelight systemd mime applications man dbus-1 gnome-shell krunner -type f | while read -r f; do install -D -m 0644 "$$f" "$(DESTDIR)$(PREFIX)/share/$$f"; done
	# The unit names the installed program by its full path, whatever PREFIX is.
	sed -i 's|^ExecStart=limelightd |ExecStart=$(PREFIX)/bin/limelightd |' $(DESTDIR)$(PREFIX)/share/systemd/user/limelightd.service
	# So does the D-Bus service file, which the bus runs without a search path.
	sed -i 's|^Exec=limelight-search-provider$$|Exec=$(PREFIX)/bin/limelight-search-provider|' $(DESTDIR)$(PREFIX)/share/dbus-1/services/org.limelight.SearchProvider.service
	for p in limelight limelightd limelight-search-provider cookbook; do \
	  install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d; \
	  $(DESTDIR)$(PREFIX)/bin/$$p --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$p; \
	  $(DESTDIR)$(PREFIX)/bin/$$p --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$p; \
	  $(DESTDIR)$(PREFIX)/bin/$$p --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$p.fish; \
	done
	@echo "installed under $(DESTDIR)$(PREFIX); enable the daemon with: systemctl --user enable --now limelightd"

build-release: deps static-libs
	$(RELEASE_ENV) SWIFT=$(SWIFT) scripts/swift-build.sh $(RELEASE)

# pkg-config files for SQLite and zlib that link their archives, for the release build; a library
# whose archive the C compiler does not find gets none, and the programs load its `.so` as before.
static-libs:
	@mkdir -p $(STATIC_LIBS)
	@for pair in sqlite3:libsqlite3.a:-lsqlite3 zlib:libz.a:-lz; do \
	  module=$${pair%%:*}; rest=$${pair#*:}; archive=$${rest%%:*}; flag=$${rest#*:}; \
	  path="$$($${CC:-cc} -print-file-name=$$archive)"; \
	  if [ -f "$$path" ] && pkg-config --exists $$module; then \
	    ln -sf "$$path" $(STATIC_LIBS)/$$archive; \
	    printf 'Name: %s\nDescription: %s from its static archive\nVersion: %s\nLibs: -L%s %s %s\nCflags: %s\n' \
	      $$module $$module "$$(pkg-config --modversion $$module)" $(STATIC_LIBS) $$flag "$$(pkg-config --static --libs-only-l $$module | sed "s/$$flag//")" \
	      "-I$$(pkg-config --variable=includedir $$module)" > $(STATIC_LIBS)/$$module.pc; \
	  else \
	    rm -f $(STATIC_LIBS)/$$archive $(STATIC_LIBS)/$$module.pc; \
	  fi; \
	done

# Benchmarks side by side with their peers, in release mode; prints a markdown table, writes JSON
# to Benchmarks/results/. LIMELIGHT_BENCH_SCALE=0.05 for a quick run; LIMELIGHT_BENCH_ONLY=store,query,
# markers,index,search,daemon for some groups.
bench: deps static-libs
	@scripts/ensure-bench-deps.sh
	$(RELEASE_ENV) $(SWIFT) build $(RELEASE) --product limelight
	$(RELEASE_ENV) $(SWIFT) build $(RELEASE) --product limelightd
	cd Benchmarks && $(SWIFT) build -c release && LIMELIGHT_BIN="$$($(SWIFT) build $(RELEASE) --show-bin-path --package-path ..)" ./.build/release/limelight-bench

# Coverage-guided fuzzing (libFuzzer) of every reader of outside input, one program per reader in
# Fuzz/, FUZZ_SECONDS each (FUZZ_TARGETS=xml-store,... for some); says which found what, and keeps
# findings and the growing corpus in .build/fuzz/. Not part of `make test`.
FUZZ_SECONDS ?= 60
comma := ,
fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(subst $(comma), ,$(FUZZ_TARGETS))" SWIFT=$(SWIFT) scripts/fuzz.sh

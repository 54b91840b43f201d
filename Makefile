# Limelight: one command for the demo, one for the tests. Both install what they need.
PREFIX ?= /usr/local
SWIFT ?= swift

.PHONY: deps build test demo install clean

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

demo: build
	@scripts/demo.sh

clean:
	rm -rf .build

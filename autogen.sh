#!/bin/sh
# Regenerate the build system: ./autogen.sh && ./configure && make
set -e
srcdir=$(dirname "$0")
cd "$srcdir"
autoreconf --force --install --verbose

#!/bin/bash
# verify-bls.sh on arm64 (issue 27): verified boot under enforce (each bad
# entry refused with one line, the signed one boots with its signed command
# line) with the arm64 lboot in the arm64 LinuxBoot ROM.
E2E_ARM64=1 exec bash "$(dirname "$0")/verify-bls.sh"

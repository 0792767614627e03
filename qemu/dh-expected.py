#!/usr/bin/env python3
"""dh-expected: print the value KEYCTL_DH_COMPUTE must return for guest/keyctl-dh.c, as lowercase hex.

Reads prime_hex, private_hex and base from the C source itself, so the program and the expectation
cannot drift apart, and computes base ** private mod prime, padded to the prime's length (as the kernel
writes it). Usage: dh-expected.py KEYCTL_DH_C
"""
import re
import sys


def c_string(source, name):
    match = re.search(r'%s\[\]\s*=\s*((?:\s*"[0-9A-Fa-f]*")+)\s*;' % name, source)
    if not match:
        sys.exit("dh-expected: no %s in the source" % name)
    return "".join(re.findall(r'"([0-9A-Fa-f]*)"', match.group(1)))


def main():
    source = open(sys.argv[1]).read()
    prime = int(c_string(source, "prime_hex"), 16)
    private = int(c_string(source, "private_hex"), 16)
    base = re.search(r"base\[\]\s*=\s*\{\s*(\d+)\s*\}", source)
    if not base:
        sys.exit("dh-expected: no base in the source")
    size = (prime.bit_length() + 7) // 8
    print(pow(int(base.group(1)), private, prime).to_bytes(size, "big").hex())


main()

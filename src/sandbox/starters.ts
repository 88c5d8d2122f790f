/**
 * The program a candidate's editor opens with, per language: read the whole of stdin, leave the solving to
 * them. Problems are stdin → stdout, so one template per language fits every problem.
 */
export const STARTER_TEMPLATES: Record<string, string> = {
  python: `import sys


def main() -> None:
    data = sys.stdin.read().split()
    # Solve the problem here and print the answer.


main()
`,
  javascript: `const data = require('fs').readFileSync(0, 'utf8').split(/\\s+/).filter(Boolean);

// Solve the problem here and print the answer with console.log.
`,
  typescript: `declare const require: any;
const data: string[] = require('fs').readFileSync(0, 'utf8').split(/\\s+/).filter(Boolean);

// Solve the problem here and print the answer with console.log.
`,
  c: `#include <stdio.h>

int main(void) {
    /* Read the input with scanf, solve the problem, print the answer with printf. */
    return 0;
}
`,
  cpp: `#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    // Read the input with cin, solve the problem, print the answer with cout.
    return 0;
}
`,
  java: `import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        // Read the input, solve the problem, print the answer with System.out.
    }
}
`,
  rust: `use std::io::{self, Read, Write};

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let mut out = io::stdout().lock();
    // Solve the problem here and write the answer to out.
    let _ = writeln!(out);
}
`,
  go: `package main

import (
\t"bufio"
\t"fmt"
\t"os"
)

func main() {
\tin := bufio.NewReader(os.Stdin)
\tout := bufio.NewWriter(os.Stdout)
\tdefer out.Flush()
\t// Read with fmt.Fscan(in, ...), solve the problem, print with fmt.Fprintln(out, ...).
\t_ = in
\tfmt.Fprint(out)
}
`,
  perl: `use strict;
use warnings;

my @data = split ' ', do { local $/; <STDIN> };
# Solve the problem here and print the answer.
`,
  bash: `#!/bin/bash
# Read the input with read, solve the problem, print the answer with echo.
`,
};

export const starterTemplate = (languageId: string): string => STARTER_TEMPLATES[languageId] ?? '';

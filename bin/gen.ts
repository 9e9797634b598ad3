#!/usr/bin/env -S node --import tsx
// The `gen` command: see generator/cli/program.ts.
import { runCli } from '../generator/cli/program.js';

process.exitCode = await runCli(process.argv.slice(2));

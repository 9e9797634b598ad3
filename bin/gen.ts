#!/usr/bin/env node
// The `gen` command: see generator/cli/program.ts.
import { runCli } from '../generator/cli/program.js';

process.exitCode = await runCli(process.argv.slice(2));

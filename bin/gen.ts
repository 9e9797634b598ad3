#!/usr/bin/env node
// The `gen` command: see generator/cli/program.ts.
// First: a Node.js Portico does not support stops here with one line.
import '../runtime/http/supported-node.js';
import { runCli } from '../generator/cli/program.js';

process.exitCode = await runCli(process.argv.slice(2));

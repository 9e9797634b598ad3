/** The hostile-input suite on SQLite (embedded). */
import { describe } from 'vitest';
import { defineHostileInputSuite } from './hostile-input/hostile-input.suite.js';

describe('hostile input on SQLite', () => defineHostileInputSuite('sqlite'));

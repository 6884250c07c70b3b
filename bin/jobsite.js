#!/usr/bin/env node
// Thin launcher so `jobsite` works as an installed bin: runs the TypeScript CLI through tsx.
import { register } from 'tsx/esm/api';
register();
await import('../src/main.ts');

#!/usr/bin/env node
// `npx crm-preflight ...` from a checkout: a bin must be JavaScript, so load the TypeScript CLI through tsx.
import { register } from "tsx/esm/api";

register();
await import("./preflight.ts");

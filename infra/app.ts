import { createAssembly } from './assembly.js';

createAssembly().app.synth();

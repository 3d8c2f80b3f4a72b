export { LlmClient, LlmUnavailable } from './llm-client.js';
export { aiModule } from './ai.module.js';

export {};
export * from "./fake-provider-server.js";

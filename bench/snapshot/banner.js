// Prepended to the snapshot prototype's bundle (bench/src/snapshot-prototype.ts): what makes the CLI's modules
// loadable while V8 builds a start-up snapshot, and usable after it is deserialized.
var __kosongBuildRequire = require;
// After deserialization: built-ins through process.getBuiltinModule (the snapshot builder's require warns about
// them), packages left out of the bundle (sharp, pg, MCP, the tokenizer) as apps/cli resolves them.
var __kosongRuntime = { require: null };
// Built-ins Node does not support in a user snapshot (http, child_process, readline...): a module requiring one
// while the snapshot builds gets a facade with the module's property names, which loads the module on first use.
var __kosongFacades = new Map();
require = function kosongRequire(id) {
  if (__kosongRuntime.require) return __kosongRuntime.require(id);
  var bare = id.startsWith("node:") ? id.slice(5) : id;
  var names = __KOSONG_DEFERRED_BUILTINS__[bare];
  if (!names) return __kosongBuildRequire(id);
  var facade = __kosongFacades.get(bare);
  if (facade) return facade;
  var real = null;
  var load = function () {
    if (real === null) real = __kosongRuntime.require ? __kosongRuntime.require(bare) : __kosongBuildRequire(bare);
    return real;
  };
  facade = {};
  names.forEach(function (name) {
    Object.defineProperty(facade, name, { enumerable: true, configurable: true, get: function () { return load()[name]; }, set: function (value) { load()[name] = value; } });
  });
  __kosongFacades.set(bare, facade);
  return facade;
};
// Intl objects (ICU) cannot be serialized (string-width makes an Intl.Segmenter at load): one made while the
// snapshot builds is a stand-in that makes the real one on first use.
(function () {
  var originals = {};
  ["Segmenter", "Collator", "NumberFormat", "DateTimeFormat", "PluralRules", "RelativeTimeFormat", "ListFormat", "DisplayNames"].forEach(function (name) {
    var Original = Intl[name];
    if (!Original) return;
    originals[name] = Original;
    Intl[name] = function (locales, options) {
      var real = null;
      return new Proxy({}, {
        get: function (_, key) {
          if (real === null) real = new Original(locales, options);
          var value = real[key];
          return typeof value === "function" ? value.bind(real) : value;
        },
      });
    };
  });
  require("node:v8").startupSnapshot.addSerializeCallback(function () { Object.assign(Intl, originals); });
})();
// import.meta.url of bundled ES modules (fdir makes a require from it at load; @kosong/soul loads the tokenizer's
// tables through one): a file in apps/cli, so that the packages left out of the bundle resolve as the CLI's do.
var __kosongMetaUrl = require("node:url").pathToFileURL(__KOSONG_RESOLVE_FROM__).href;

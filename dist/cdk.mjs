import { createRequire as __WEBPACK_EXTERNAL_createRequire } from "module";
import * as __WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_4d663ad7__ from "aws-cdk-lib";
import * as __WEBPACK_EXTERNAL_MODULE_constructs__ from "constructs";
import * as __WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_aws_applicationautoscaling_01f2dd68__ from "aws-cdk-lib/aws-applicationautoscaling";
import * as __WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_aws_cloudwatch_69e4e3f9__ from "aws-cdk-lib/aws-cloudwatch";
/******/ // The require scope
/******/ var __nccwpck_require__ = {};
/******/ 
/************************************************************************/
/******/ /* webpack/runtime/define property getters */
/******/ (() => {
/******/ 	// define getter functions for harmony exports
/******/ 	__nccwpck_require__.d = (exports, definition) => {
/******/ 		for(var key in definition) {
/******/ 			if(__nccwpck_require__.o(definition, key) && !__nccwpck_require__.o(exports, key)) {
/******/ 				Object.defineProperty(exports, key, { enumerable: true, get: definition[key] });
/******/ 			}
/******/ 		}
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/hasOwnProperty shorthand */
/******/ (() => {
/******/ 	__nccwpck_require__.o = (obj, prop) => (Object.prototype.hasOwnProperty.call(obj, prop))
/******/ })();
/******/ 
/************************************************************************/
var __webpack_exports__ = {};

// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  n: () => (/* binding */ ScalegateScaling),
  Y: () => (/* binding */ isScalegateRefusal)
});

;// CONCATENATED MODULE: external "node:path"
const external_node_path_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:path");
;// CONCATENATED MODULE: external "aws-cdk-lib"
var x = (y) => {
	var x = {}; __nccwpck_require__.d(x, y); return x
} 
var y = (x) => (() => (x))
const external_aws_cdk_lib_namespaceObject = x({ ["Duration"]: () => (__WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_4d663ad7__.Duration), ["Stack"]: () => (__WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_4d663ad7__.Stack), ["Token"]: () => (__WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_4d663ad7__.Token) });
;// CONCATENATED MODULE: external "constructs"
var external_constructs_x = (y) => {
	var x = {}; __nccwpck_require__.d(x, y); return x
} 
var external_constructs_y = (x) => (() => (x))
const external_constructs_namespaceObject = external_constructs_x({ ["Construct"]: () => (__WEBPACK_EXTERNAL_MODULE_constructs__.Construct), ["DependencyGroup"]: () => (__WEBPACK_EXTERNAL_MODULE_constructs__.DependencyGroup) });
;// CONCATENATED MODULE: external "node:fs"
const external_node_fs_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs");
;// CONCATENATED MODULE: external "node:module"
const external_node_module_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:module");
;// CONCATENATED MODULE: ./src/model/errors.ts
/**
 * A mistake the user can fix: bad flag, bad file, refused input. The CLI and the action print
 * the message (never a stack trace) and exit with code 2.
 *
 * A message is written once for both surfaces: an option it names is an `OptionRef`, rendered
 * `--slo-ms` on the command line and `input slo-ms` in the action (`messageFor`). `message`
 * itself is the command-line rendering.
 */
const errors_opt = (option, value) => value === undefined ? { option } : { option, value };
/** An option as the subject of a refusal: `--peak-rps needs ...` / `input peak-rps: needs ...`. */
const subject = (option) => ({ option, subject: true });
const isOptionRef = (v) => typeof v === 'object' && v !== null && typeof v.option === 'string';
function renderOption(ref, surface) {
    if (surface === 'cli')
        return ref.value === undefined ? `--${ref.option}` : `--${ref.option} ${ref.value}`;
    if (ref.subject)
        return `input ${ref.option}:`;
    return ref.value === undefined ? `input ${ref.option}` : `input ${ref.option} (${ref.value})`;
}
const render = (parts, surface) => parts.map((p) => (typeof p === 'string' ? p : renderOption(p, surface))).join('');
class errors_UsageError extends Error {
    exitCode = 2;
    parts;
    constructor(message) {
        const parts = typeof message === 'string' ? [message] : message;
        super(render(parts, 'cli'));
        this.parts = parts;
        this.name = 'UsageError';
    }
    /** The message with every option it names spelled the way `surface` takes it. */
    messageFor(surface) {
        return render(this.parts, surface);
    }
}
/** `usage\`${opt('rungs')} lists the rungs of a fixed ladder\``: a UsageError naming options. */
function errors_usage(strings, ...values) {
    const parts = [];
    strings.forEach((s, i) => {
        if (s !== '')
            parts.push(s);
        if (i < values.length) {
            const v = values[i];
            parts.push(isOptionRef(v) ? v : String(v));
        }
    });
    return new errors_UsageError(parts);
}
const isUsageError = (e) => e instanceof Error && e.name === 'UsageError';
/**
 * A failure of the world, not of the input: an AWS call refused or unanswered (throttling,
 * credentials, a missing endpoint, a closed port, a timeout). The CLI and the action print the
 * message, which names the operation, the resource and the region (never a stack trace), and exit
 * with code 3. `name` stays the underlying error's (`ValidationException`,
 * `ResourceNotFoundException`, ...) so callers that tell one AWS error from another still can.
 */
class OperationalError extends Error {
    exitCode = 3;
    operational = true;
    operation;
    resource;
    region;
    constructor(what, cause) {
        const inner = cause instanceof Error ? cause : new Error(String(cause));
        const where = `${what.resource ? ` ${what.resource}` : ''}${what.region ? ` in ${what.region}` : ''}`;
        super(`${what.operation}${where}: ${describeCause(inner)}`, { cause });
        this.name = inner.name && inner.name !== 'Error' ? inner.name : 'OperationalError';
        this.operation = what.operation;
        this.resource = what.resource;
        this.region = what.region;
    }
}
/** The cause in one line: its message, or its network code (its AWS error name is the `name`). */
function describeCause(e) {
    const code = e.code;
    return e.message || code || 'no answer';
}
const isOperationalError = (e) => e instanceof Error && e.operational === true;

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/util.js

// functions
function assertEqual(val) {
    return val;
}
function assertNotEqual(val) {
    return val;
}
function toZod() {
    return (schema) => schema;
}
function assertIs(_arg) { }
function assertNever(_x) {
    throw new Error("Unexpected value in exhaustive check");
}
function assert(_) { }
function getEnumValues(entries) {
    const numericValues = Object.values(entries).filter((v) => typeof v === "number");
    const values = Object.entries(entries)
        .filter(([k, _]) => numericValues.indexOf(+k) === -1)
        .map(([_, v]) => v);
    return values;
}
function joinValues(array, separator = "|") {
    return array.map((val) => stringifyPrimitive(val)).join(separator);
}
function jsonStringifyReplacer(_, value) {
    if (typeof value === "bigint")
        return value.toString();
    return value;
}
// the accessor lives on a shared prototype: an own accessor makes every box a dictionary-mode object (~360 B and a slow load per read against ~100 B and an inlined getter here)
class Cached {
    constructor(getter) {
        this._getter = getter;
        this._value = undefined;
    }
    get value() {
        const getter = this._getter;
        if (getter !== undefined) {
            this._value = getter();
            this._getter = undefined;
        }
        return this._value;
    }
}
function cached(getter) {
    return new Cached(getter);
}
function nullish(input) {
    return input === null || input === undefined;
}
function cleanRegex(source) {
    const start = source.startsWith("^") ? 1 : 0;
    const end = source.endsWith("$") ? source.length - 1 : source.length;
    return source.slice(start, end);
}
function floatSafeRemainder(val, step) {
    const ratio = val / step;
    const roundedRatio = Math.round(ratio);
    // `val` and `step` each round to a double before the division rounds again, so a true decimal multiple's quotient can sit up to 1.5 of these scaled epsilons from the integer. A 1x tolerance therefore rejected 2.03 as a multiple of 0.07; 4x covers the worst case with margin.
    const tolerance = 4 * Number.EPSILON * Math.max(Math.abs(ratio), 1);
    if (Math.abs(ratio - roundedRatio) < tolerance)
        return 0;
    return ratio - roundedRatio;
}
const EVALUATING = /* @__PURE__*/ (/* unused pure expression or super */ null && (Symbol("evaluating")));
function defineLazy(object, key, getter) {
    let value = undefined;
    Object.defineProperty(object, key, {
        get() {
            if (value === EVALUATING) {
                // Circular reference detected, return undefined to break the cycle
                return undefined;
            }
            if (value === undefined) {
                value = EVALUATING;
                value = getter();
            }
            return value;
        },
        set(v) {
            Object.defineProperty(object, key, {
                value: v,
                // configurable: true,
            });
            // object[key] = v;
        },
        configurable: true,
    });
}
function objectClone(obj) {
    return Object.create(Object.getPrototypeOf(obj), Object.getOwnPropertyDescriptors(obj));
}
function util_assignProp(target, prop, value) {
    Object.defineProperty(target, prop, {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
    });
}
/**
 * Whichever object a def's `shape` currently answers from: the one the caller passed until the first read, the frozen copy after it.
 *
 * Its keys and descriptors read without invoking anything, which is what lets a discriminated union check its discriminator, and the cycle walk read a shape, without resolving a getter that references the schema being constructed. A def that answers `shape` from an accessor of its own has none.
 */
function rawShape(def) {
    const desc = Object.getOwnPropertyDescriptor(def, "shape");
    return desc?.get ? desc.get.raw : desc?.value;
}
// where a builder reads its source's keys and descriptors, resolving only a shape a def answers for itself. A shape resolves by object spread, so only its enumerable keys are ever part of it.
function sourceShape(schema) {
    return rawShape(schema._zod.def) ?? schema._zod.def.shape;
}
// a key whose value is not settled yet, self-caching so every read after the first gets the same one
function deferProp(target, key, getter) {
    Object.defineProperty(target, key, {
        get() {
            const value = getter();
            util_assignProp(this, key, value);
            return value;
        },
        enumerable: true,
        configurable: true,
    });
}
// Writes a settled key. A plain assignment is much cheaper than `defineProperty` and produces the same descriptor, but it runs whatever setter already answers to the key — an accessor this shape deferred, or an inherited one, which `__proto__` has on every object and prototype pollution can add for any name.
function putProp(target, key, value) {
    if (key in target)
        util_assignProp(target, key, value);
    else
        target[key] = value;
}
/**
 * Copies `keys` of `source`'s shape onto `target`, each value passed through `wrap`.
 *
 * A key the source has resolved is copied through now, so the derived shape states it outright and nothing has to resolve it to learn what it holds. A key the source still defers stays deferred, and reads back through the source's own `shape`, so it resolves once and both shapes get that one schema.
 */
function mirrorShape(target, source, keys, wrap) {
    const raw = sourceShape(source);
    for (const key of keys) {
        const desc = Object.getOwnPropertyDescriptor(raw, key);
        if (!desc.enumerable)
            continue;
        if (desc.get) {
            deferProp(target, key, () => {
                const value = source._zod.def.shape[key];
                return wrap ? wrap(value, key) : value;
            });
        }
        else
            putProp(target, key, wrap ? wrap(desc.value, key) : desc.value);
    }
}
// same, for a plain shape a caller passed rather than a schema's
function mirrorProps(target, source) {
    for (const key of Reflect.ownKeys(source)) {
        const desc = Object.getOwnPropertyDescriptor(source, key);
        if (!desc.enumerable)
            continue;
        if (desc.get)
            deferProp(target, key, () => source[key]);
        else
            putProp(target, key, desc.value);
    }
}
function mergeDefs(...defs) {
    const mergedDescriptors = {};
    for (const def of defs) {
        const descriptors = Object.getOwnPropertyDescriptors(def);
        Object.assign(mergedDescriptors, descriptors);
    }
    return Object.defineProperties({}, mergedDescriptors);
}
function cloneDef(schema) {
    return mergeDefs(schema._zod.def);
}
function getElementAtPath(obj, path) {
    if (!path)
        return obj;
    return path.reduce((acc, key) => acc?.[key], obj);
}
function promiseAllObject(promisesObj) {
    const keys = Object.keys(promisesObj);
    const promises = keys.map((key) => promisesObj[key]);
    return Promise.all(promises).then((results) => {
        const resolvedObj = {};
        for (let i = 0; i < keys.length; i++) {
            resolvedObj[keys[i]] = results[i];
        }
        return resolvedObj;
    });
}
function randomString(length = 10) {
    const chars = "abcdefghijklmnopqrstuvwxyz";
    let str = "";
    for (let i = 0; i < length; i++) {
        str += chars[Math.floor(Math.random() * chars.length)];
    }
    return str;
}
function esc(str) {
    return JSON.stringify(str);
}
function slugify(input) {
    return input
        .toLowerCase()
        .trim()
        .replace(/[^\w\s-]/g, "")
        .replace(/[\s_-]+/g, "-")
        .replace(/^-+|-+$/g, "");
}
const captureStackTrace = ("captureStackTrace" in Error ? Error.captureStackTrace : (..._args) => { });
function util_isObject(data) {
    return typeof data === "object" && data !== null && !Array.isArray(data);
}
const util_allowsEval = /* @__PURE__*/ cached(() => {
    // Skip the probe under `jitless`: strict CSPs report the caught `new Function` as a `securitypolicyviolation` even though the throw is swallowed.
    if (globalConfig.jitless) {
        return false;
    }
    // @ts-ignore
    if (typeof navigator !== "undefined" && navigator?.userAgent?.includes("Cloudflare")) {
        return false;
    }
    try {
        const F = Function;
        new F("");
        return true;
    }
    catch (_) {
        return false;
    }
});
function isPlainObject(o) {
    if (util_isObject(o) === false)
        return false;
    // modified constructor
    const ctor = o.constructor;
    if (ctor === undefined)
        return true;
    if (typeof ctor !== "function")
        return true;
    // modified prototype
    const prot = ctor.prototype;
    if (util_isObject(prot) === false)
        return false;
    // ctor doesn't have static `isPrototypeOf`
    if (Object.prototype.hasOwnProperty.call(prot, "isPrototypeOf") === false) {
        return false;
    }
    return true;
}
function shallowClone(o) {
    if (isPlainObject(o))
        return { ...o };
    if (Array.isArray(o))
        return [...o];
    if (o instanceof Map)
        return new Map(o);
    if (o instanceof Set)
        return new Set(o);
    return o;
}
function numKeys(data) {
    let keyCount = 0;
    for (const key in data) {
        if (Object.prototype.hasOwnProperty.call(data, key)) {
            keyCount++;
        }
    }
    return keyCount;
}
const getParsedType = (data) => {
    const t = typeof data;
    switch (t) {
        case "undefined":
            return "undefined";
        case "string":
            return "string";
        case "number":
            return Number.isNaN(data) ? "nan" : "number";
        case "boolean":
            return "boolean";
        case "function":
            return "function";
        case "bigint":
            return "bigint";
        case "symbol":
            return "symbol";
        case "object":
            if (Array.isArray(data)) {
                return "array";
            }
            if (data === null) {
                return "null";
            }
            if (data.then && typeof data.then === "function" && data.catch && typeof data.catch === "function") {
                return "promise";
            }
            if (typeof Map !== "undefined" && data instanceof Map) {
                return "map";
            }
            if (typeof Set !== "undefined" && data instanceof Set) {
                return "set";
            }
            if (typeof Date !== "undefined" && data instanceof Date) {
                return "date";
            }
            // @ts-ignore
            if (typeof File !== "undefined" && data instanceof File) {
                return "file";
            }
            return "object";
        default:
            throw new Error(`Unknown data type: ${t}`);
    }
};
const propertyKeyTypes = /* @__PURE__*/ new Set(["string", "number", "symbol"]);
const primitiveTypes = /* @__PURE__*/ new Set([
    "string",
    "number",
    "bigint",
    "boolean",
    "symbol",
    "undefined",
]);
function escapeRegex(str) {
    return str.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
// zod-specific utils
function clone(inst, def, params) {
    const cl = new inst._zod.constr(def ?? inst._zod.def);
    if (!def || params?.parent)
        cl._zod.parent = inst;
    return cl;
}
function normalizeParams(_params) {
    const params = _params;
    if (!params)
        return {};
    if (typeof params === "string")
        return { error: () => params };
    if (params?.message !== undefined) {
        if (params?.error !== undefined)
            throw new Error("Cannot specify both `message` and `error` params");
        params.error = params.message;
    }
    delete params.message;
    if (typeof params.error === "string")
        return { ...params, error: () => params.error };
    return params;
}
function createTransparentProxy(getter) {
    let target;
    return new Proxy({}, {
        get(_, prop, receiver) {
            target ?? (target = getter());
            return Reflect.get(target, prop, receiver);
        },
        set(_, prop, value, receiver) {
            target ?? (target = getter());
            return Reflect.set(target, prop, value, receiver);
        },
        has(_, prop) {
            target ?? (target = getter());
            return Reflect.has(target, prop);
        },
        deleteProperty(_, prop) {
            target ?? (target = getter());
            return Reflect.deleteProperty(target, prop);
        },
        ownKeys(_) {
            target ?? (target = getter());
            return Reflect.ownKeys(target);
        },
        getOwnPropertyDescriptor(_, prop) {
            target ?? (target = getter());
            return Reflect.getOwnPropertyDescriptor(target, prop);
        },
        defineProperty(_, prop, descriptor) {
            target ?? (target = getter());
            return Reflect.defineProperty(target, prop, descriptor);
        },
    });
}
function stringifyPrimitive(value) {
    if (typeof value === "bigint")
        return value.toString() + "n";
    if (typeof value === "string")
        return `"${value}"`;
    return `${value}`;
}
function optionalKeys(shape) {
    return Object.keys(shape).filter((k) => {
        return shape[k]._zod.optin !== undefined && shape[k]._zod.optout === "optional";
    });
}
// Wrapped in a `@__PURE__` IIFE: esbuild never tree-shakes a top-level initializer that contains a member access on `Number`, so the bare object literal survived into every bundle.
const NUMBER_FORMAT_RANGES = /*@__PURE__*/ (() => ({
    safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    int32: [-2147483648, 2147483647],
    uint32: [0, 4294967295],
    float32: [-3.4028234663852886e38, 3.4028234663852886e38],
    float64: [-Number.MAX_VALUE, Number.MAX_VALUE],
}))();
const BIGINT_FORMAT_RANGES = {
    int64: [/* @__PURE__*/ BigInt("-9223372036854775808"), /* @__PURE__*/ BigInt("9223372036854775807")],
    uint64: [/* @__PURE__*/ BigInt(0), /* @__PURE__*/ BigInt("18446744073709551615")],
};
function pick(schema, mask) {
    const currDef = schema._zod.def;
    const checks = currDef.checks;
    const hasChecks = checks && checks.length > 0;
    if (hasChecks) {
        throw new Error(".pick() cannot be used on object schemas containing refinements");
    }
    const newShape = {};
    mirrorShape(newShape, schema, maskedKeys(schema, mask));
    return clone(schema, mergeDefs(currDef, { shape: newShape, checks: [] }));
}
// the mask keys that select something, checked against the source's shape without resolving it
function maskedKeys(schema, mask) {
    const raw = sourceShape(schema);
    const keys = [];
    // `for...in` skips symbols, so a symbol in the mask would select nothing
    for (const key of Reflect.ownKeys(mask)) {
        if (!Object.getOwnPropertyDescriptor(raw, key)?.enumerable) {
            throw new Error(`Unrecognized key: "${String(key)}"`);
        }
        if (mask[key])
            keys.push(key);
    }
    return keys;
}
function omit(schema, mask) {
    const currDef = schema._zod.def;
    const checks = currDef.checks;
    const hasChecks = checks && checks.length > 0;
    if (hasChecks) {
        throw new Error(".omit() cannot be used on object schemas containing refinements");
    }
    const omitted = new Set(maskedKeys(schema, mask));
    const newShape = {};
    mirrorShape(newShape, schema, Reflect.ownKeys(sourceShape(schema)).filter((key) => !omitted.has(key)));
    return clone(schema, mergeDefs(currDef, { shape: newShape, checks: [] }));
}
function extend(schema, shape) {
    if (!isPlainObject(shape)) {
        throw new Error("Invalid input to extend: expected a plain object");
    }
    const checks = schema._zod.def.checks;
    const hasChecks = checks && checks.length > 0;
    if (hasChecks) {
        // Only throw if new shape overlaps with existing shape. Use getOwnPropertyDescriptor to check key existence without accessing values
        const existingShape = sourceShape(schema);
        for (const key of Reflect.ownKeys(shape)) {
            if (Object.getOwnPropertyDescriptor(existingShape, key) !== undefined) {
                throw new Error("Cannot overwrite keys on object schemas containing refinements. Use `.safeExtend()` instead.");
            }
        }
    }
    return clone(schema, mergeDefs(schema._zod.def, { shape: extended(schema, shape) }));
}
// the source's keys, then the caller's overlaid on top
function extended(schema, shape) {
    const newShape = {};
    mirrorShape(newShape, schema, Reflect.ownKeys(sourceShape(schema)));
    mirrorProps(newShape, shape);
    return newShape;
}
function safeExtend(schema, shape) {
    if (!isPlainObject(shape)) {
        throw new Error("Invalid input to safeExtend: expected a plain object");
    }
    return clone(schema, mergeDefs(schema._zod.def, { shape: extended(schema, shape) }));
}
function merge(a, b) {
    if (!b?._zod?.def) {
        throw new Error("Invalid input to merge: expected an object schema. To merge a plain shape, use `.extend()`.");
    }
    if (a._zod.def.checks?.length) {
        throw new Error(".merge() cannot be used on object schemas containing refinements. Use .safeExtend() instead.");
    }
    const newShape = {};
    mirrorShape(newShape, a, Reflect.ownKeys(sourceShape(a)));
    mirrorShape(newShape, b, Reflect.ownKeys(sourceShape(b)));
    const def = mergeDefs(a._zod.def, {
        shape: newShape,
        get catchall() {
            return b._zod.def.catchall;
        },
        checks: b._zod.def.checks ?? [],
    });
    return clone(a, def);
}
function partial(Class, schema, mask, name = "partial") {
    const currDef = schema._zod.def;
    const checks = currDef.checks;
    const hasChecks = checks && checks.length > 0;
    if (hasChecks) {
        throw new Error(`.${name}() cannot be used on object schemas containing refinements`);
    }
    const selected = mask ? new Set(maskedKeys(schema, mask)) : undefined;
    const newShape = {};
    mirrorShape(newShape, schema, Reflect.ownKeys(sourceShape(schema)), Class &&
        ((value, key) => (selected && !selected.has(key) ? value : new Class({ type: "optional", innerType: value }))));
    return clone(schema, mergeDefs(schema._zod.def, { shape: newShape, checks: [] }));
}
function required(Class, schema, mask) {
    const selected = mask ? new Set(maskedKeys(schema, mask)) : undefined;
    const newShape = {};
    mirrorShape(newShape, schema, Reflect.ownKeys(sourceShape(schema)), (value, key) => 
    // overwrite with non-optional
    selected && !selected.has(key) ? value : new Class({ type: "nonoptional", innerType: value }));
    return clone(schema, mergeDefs(schema._zod.def, { shape: newShape }));
}
// invalid_type | too_big | too_small | invalid_format | not_multiple_of | unrecognized_keys | invalid_union | invalid_key | invalid_element | invalid_value | custom
function aborted(x, startIndex = 0) {
    if (x.aborted === true)
        return true;
    for (let i = startIndex; i < x.issues.length; i++) {
        if (x.issues[i]?.continue !== true) {
            return true;
        }
    }
    return false;
}
// Checks for explicit abort (continue === false), as opposed to implicit abort (continue === undefined). Used to respect `abort: true` in .refine() even for checks that have a `when` function.
function explicitlyAborted(x, startIndex = 0) {
    if (x.aborted === true)
        return true;
    for (let i = startIndex; i < x.issues.length; i++) {
        if (x.issues[i]?.continue === false) {
            return true;
        }
    }
    return false;
}
function prefixIssues(path, issues) {
    return issues.map((iss) => {
        var _a;
        (_a = iss).path ?? (_a.path = []);
        iss.path.unshift(path);
        return iss;
    });
}
function unwrapMessage(message) {
    return typeof message === "string" ? message : message?.message;
}
/* A check holds no link back to the schema it is attached to — the same check instance is shared by every clone of that schema — so the owner is stamped onto the issues a check just raised, at the only point where both are in scope. Runs on the failure path only; `start` is the issue count from before the check ran. */
/** The leading size checks of `defChecks` that set an upper bound, each paired with it. */
function sizeCaps(defChecks) {
    const caps = [];
    for (const ch of defChecks ?? []) {
        const d = ch._zod.def;
        // a later check may rewrite the value
        if (!/_(length|size)$|_equals$/.test(d.check))
            break;
        const max = d.maximum ?? d.length ?? d.size;
        if (max >= 0)
            caps.push([max, ch]);
    }
    return caps;
}
function attachSchema(issues, start, inst) {
    var _a;
    for (let i = start; i < issues.length; i++) {
        (_a = issues[i]).schema ?? (_a.schema = inst);
    }
}
function finalizeIssue(iss, ctx, config) {
    var _a;
    // A schema that raised an issue itself owns it outright, and outranks any stamp an enclosing check left in `attachSchema`. String formats and z.custom() are schema and check at once, so when they act as a check they defer to that stamp instead.
    const traits = iss.inst?._zod?.traits;
    if (traits?.has("$ZodType")) {
        if (traits.has("$ZodCheck"))
            (_a = iss).schema ?? (_a.schema = iss.inst);
        else
            iss.schema = iss.inst;
    }
    // Decreasing specificity, first map to return a message wins. `inst` is whatever raised the issue, so a check's own map outranks the owning schema's.
    const schemaError = iss.schema !== iss.inst ? iss.schema?._zod.def?.error : undefined;
    const message = iss.message
        ? iss.message
        : (unwrapMessage(iss.inst?._zod.def?.error?.(iss)) ??
            unwrapMessage(schemaError?.(iss)) ??
            unwrapMessage(ctx?.error?.(iss)) ??
            unwrapMessage(config.customError?.(iss)) ??
            unwrapMessage(config.localeError?.(iss)) ??
            "Invalid input");
    // an explicit own-key copy beats object rest with excluded keys, which v8 routes through a generic runtime call; Object.keys rather than for-in so an issue pushed with a prototype does not leak inherited keys, and an own __proto__ key is dropped rather than assigned through the setter
    const full = {};
    for (const k of Object.keys(iss)) {
        if (k === "inst" || k === "schema" || k === "continue" || k === "input" || k === "__proto__")
            continue;
        full[k] = iss[k];
    }
    full.path ?? (full.path = []);
    full.message = message;
    if (ctx?.reportInput) {
        full.input = iss.input;
    }
    return full;
}
function getSizableOrigin(input) {
    if (input instanceof Set)
        return "set";
    if (input instanceof Map)
        return "map";
    // @ts-ignore
    if (input instanceof File)
        return "file";
    return "unknown";
}
const highSurrogate = /[\uD800-\uDBFF]/;
// Code points in `str`: a surrogate pair counts once, a lone surrogate as itself. Hand-rolled because the string iterator allocates and runs ~250x slower on this path; the regex probe exits ~50x quicker for a string with no astral characters.
function codePointLength(str) {
    const units = str.length;
    if (!highSurrogate.test(str))
        return units;
    let count = units;
    for (let i = 0; i < units - 1; i++) {
        if ((str.charCodeAt(i) & 0xfc00) === 0xd800 && (str.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
            count--;
            i++;
        }
    }
    return count;
}
function getLengthableOrigin(input) {
    if (Array.isArray(input))
        return "array";
    if (typeof input === "string")
        return "string";
    return "unknown";
}
function parsedType(data) {
    const t = typeof data;
    switch (t) {
        case "number": {
            return Number.isNaN(data) ? "nan" : "number";
        }
        case "object": {
            if (data === null) {
                return "null";
            }
            if (Array.isArray(data)) {
                return "array";
            }
            const obj = data;
            if (obj && Object.getPrototypeOf(obj) !== Object.prototype && "constructor" in obj && obj.constructor) {
                return obj.constructor.name;
            }
        }
    }
    return t;
}
function util_issue(...args) {
    const [iss, input, inst] = args;
    if (typeof iss === "string") {
        return {
            message: iss,
            code: "custom",
            input,
            inst,
        };
    }
    return { ...iss };
}
function cleanEnum(obj) {
    return Object.entries(obj)
        .filter(([k, _]) => {
        // return true if NaN, meaning it's not a number, thus a string key
        return Number.isNaN(Number.parseInt(k, 10));
    })
        .map((el) => el[1]);
}
// Codec utility functions
function base64ToUint8Array(base64) {
    const binaryString = atob(base64);
    const bytes = new Uint8Array(binaryString.length);
    for (let i = 0; i < binaryString.length; i++) {
        bytes[i] = binaryString.charCodeAt(i);
    }
    return bytes;
}
function uint8ArrayToBase64(bytes) {
    let binaryString = "";
    for (let i = 0; i < bytes.length; i++) {
        binaryString += String.fromCharCode(bytes[i]);
    }
    return btoa(binaryString);
}
function base64urlToUint8Array(base64url) {
    const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
    const padding = "=".repeat((4 - (base64.length % 4)) % 4);
    return base64ToUint8Array(base64 + padding);
}
function uint8ArrayToBase64url(bytes) {
    return uint8ArrayToBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=/g, "");
}
function hexToUint8Array(hex) {
    const cleanHex = hex.replace(/^0x/, "");
    if (cleanHex.length % 2 !== 0) {
        throw new Error("Invalid hex string length");
    }
    const bytes = new Uint8Array(cleanHex.length / 2);
    for (let i = 0; i < cleanHex.length; i += 2) {
        bytes[i / 2] = Number.parseInt(cleanHex.slice(i, i + 2), 16);
    }
    return bytes;
}
function uint8ArrayToHex(bytes) {
    return Array.from(bytes)
        .map((b) => b.toString(16).padStart(2, "0"))
        .join("");
}
// instanceof
class Class {
    constructor(..._args) { }
}
//////////    PROTOTYPE INSTALLERS     //////////
//
// Members live on the prototype and materialize per instance on first read, which keeps own-property count under the step where V8 stops using inline slots. Changing anything here means re-measuring runtime, memory and bundle size together — see "The three axes" in AGENTS.md.
/**
 * Installs a trait's members on its prototype. Each value builds that member for the instance on first read; the built value shadows the accessor as an own property, so a detached `const { parse } = schema` keeps working.
 *
 * Call this from a `proto` initializer, which runs once per prototype — never per instance.
 */
function members(proto, table) {
    for (const key in table) {
        const desc = Object.getOwnPropertyDescriptor(table, key);
        // a getter installs as written, so it stays live: `description` reads through to the registry on every access. not enumerable: an object literal's is, and a prototype member never was
        if (desc.get)
            Object.defineProperty(proto, key, { ...desc, enumerable: false });
        // a method materializes bound on first read, which is what keeps a detached member working: `const opt = schema.optional; opt()`
        else
            defineBound(proto, key, desc.value);
    }
}
/** Shadows a prototype member with an own value, so a getter that builds from the instance runs once. */
function own(inst, key, value, enumerable = true) {
    Object.defineProperty(inst, key, { configurable: true, writable: true, enumerable, value });
    return value;
}
/** Like {@link own}, for a member that was never an own data property and has to stay out of `Object.keys`. */
function hide(inst, key, value) {
    return own(inst, key, value, false);
}
/** Adds members a table derives from the instance: each builds on first read and shadows as own data, and assignment shadows the same way, as when these were own properties. */
function derived(computes, table) {
    for (const key in computes) {
        const compute = computes[key];
        // an object literal's accessor is configurable and enumerable, and `members` copies the descriptor as written
        Object.defineProperty(table, key, {
            configurable: true,
            enumerable: true,
            get() {
                return own(this, key, compute(this));
            },
            set(value) {
                own(this, key, value);
            },
        });
    }
    return table;
}
function defineBound(proto, key, fn) {
    Object.defineProperty(proto, key, {
        configurable: true,
        get() {
            // vitest's spyOn calls a prototype getter bare to find the function it wraps, so a nullish receiver answers the raw method
            return this == null ? fn : own(this, key, fn.bind(this));
        },
        set(value) {
            own(this, key, value);
        },
    });
}
/** Returns the prototype to install on, or `undefined` if this group is already installed on it. */
function claim(inst, sentinel) {
    const proto = Object.getPrototypeOf(inst);
    // Runs on every construction, so `in` rather than the costlier `hasOwnProperty.call`. Sentinels are keys the group itself defines.
    return sentinel in proto ? undefined : proto;
}
// The internals whose init chain is installing. A second call for the same one is a derived constructor overriding its base, so it must not construct another schema in between or the override is dropped.
let installing;
// Set while a getter is running, so a value that resolved through a recursion break is not memoized. One shared descriptor shadows the key for the duration, which costs no per-key allocation.
let broke = false;
const breaker = {
    configurable: true,
    get() {
        broke = true;
        return undefined;
    },
};
/**
 * Installs a lazily-derived internal on the `_zod` prototype of `inst`'s
 * constructor, computed from the internals object itself and cached there on
 * first read. One accessor per constructor rather than one per instance.
 */
function defineLazyInternal(inst, key, compute) {
    const proto = Object.getPrototypeOf(inst._zod);
    if (key in proto && installing !== inst._zod) {
        // A repeat construction: everything is installed already. Cleared here so the reference is not held past the first construction of every type.
        installing = undefined;
        return;
    }
    installing = inst._zod;
    Object.defineProperty(proto, key, {
        configurable: true,
        get() {
            // Shadowed before computing so a re-entrant read from a recursive schema resolves to undefined instead of running the getter again.
            Object.defineProperty(this, key, breaker);
            const outer = broke;
            broke = false;
            try {
                const value = compute(this);
                // A result that resolved through a recursion break is recomputed once the graph is complete; everything else memoizes, undefined included.
                if (broke)
                    delete this[key];
                else
                    Object.defineProperty(this, key, { configurable: true, writable: true, value });
                broke = broke || outer;
                return value;
            }
            catch (err) {
                // A compute that threw memoizes nothing, so a later read runs it again and fails the same way. The shadow goes with it, since leaving it installed would answer undefined for every later read.
                delete this[key];
                broke = broke || outer;
                throw err;
            }
        },
        set(value) {
            Object.defineProperty(this, key, { configurable: true, writable: true, value });
        },
    });
}
/**
 * Installs `key` on `inst`'s prototype, computed by `make` on first read and cached there as an own
 * data property. One accessor per constructor rather than one per instance, because an own accessor
 * puts every instance after the first into v8 dictionary mode. The key doubles as the sentinel.
 */
function installLazyProp(inst, key, make, enumerable) {
    const proto = claim(inst, key);
    if (!proto)
        return;
    Object.defineProperty(proto, key, {
        configurable: true,
        get() {
            // Shadowed before computing, so a re-entrant read from a self-referential shape resolves to undefined instead of running the getter again. A data property rather than an accessor: an own accessor is the dictionary-mode transition this exists to avoid.
            const desc = { configurable: true, writable: true, enumerable, value: undefined };
            Object.defineProperty(this, key, desc);
            // a compute that throws leaves the shadow behind, so later reads answer undefined instead of re-throwing; `defineLazy` did the same, and `defineLazyInternal`'s delete-on-catch would cost bytes in every bundle for a case only a throwing user getter reaches
            desc.value = make(this);
            Object.defineProperty(this, key, desc);
            return desc.value;
        },
        set(value) {
            Object.defineProperty(this, key, { configurable: true, writable: true, enumerable, value });
        },
    });
}
/** Marks the thunk `_catch` synthesises for a constant catch value. `Function.length` cannot tell that thunk from a user callback — rest and defaulted parameters both report arity 0 — and a user callback reads `ctx.error`, whose issues only finalize correctly against the caller's per-parse error map. Provenance can say what arity cannot. A plain string key rather than `Symbol.for`, whose call at module scope no bundler can prove pure — the same shape that anchored `urlCanParse` into every build. */
const CONSTANT_CATCH = "~constantCatch";
/** Wraps a constant catch value in a thunk tagged with {@link CONSTANT_CATCH}. */
function constantCatch(value) {
    const fn = () => value;
    fn[CONSTANT_CATCH] = true;
    return fn;
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/core.js
var _a;

/** A special constant with type `never` */
const NEVER = /*@__PURE__*/ Object.freeze({
    status: "aborted",
});
/* Shared descriptor for installing `_zod`; defineProperty reads it
 * synchronously, so reusing one object avoids a per-instance allocation. */
const _zodDesc = { value: undefined, enumerable: false };
// null where suppressing the capture would be unrecoverable: `parse()` puts the frames back with `captureStackTrace`, so without it the throw would lose its stack. also latched to null once `stackTraceLimit` proves unassignable, which a realm can do at any point by hardening Error
let _E = "captureStackTrace" in Error ? Error : null;
// v8 captures a stack trace inside the Error constructor, which dominates a failed parse; costs only the frames, and parse() restores those. the constructor must RUN: Object.create is cheaper and passes instanceof, but Error.isError and util.types.isNativeError check an internal slot
function newError(Definition) {
    const E = _E;
    if (E) {
        const saved = E.stackTraceLimit;
        if (typeof saved === "number") {
            try {
                E.stackTraceLimit = 0;
            }
            catch {
                _E = null;
                return new Definition();
            }
            try {
                return new Definition();
            }
            finally {
                E.stackTraceLimit = saved;
            }
        }
    }
    return new Definition();
}
function $constructor(name, initializer, 
/** This trait's members, installed once on every prototype that composes it. They cannot be declared in the initializer above: that runs per instance, and the prototype is shared. */
proto, params) {
    // Prototype for this constructor's `_zod` internals. Lazily-derived fields (`values`, `pattern`, `optin`, …) install here once rather than as an accessor on every instance.
    const zodProto = {};
    // Assigning the fields in the constructor body is what gives instances in-object slots; building the object literally and reparenting it costs a second allocation and a generic property copy.
    function Internals(def) {
        this.def = def;
        this.constr = _;
        this.traits = new Set();
    }
    Internals.prototype = zodProto;
    const protoMembers = proto;
    // One trait's members land on every prototype whose chain composes it, so the answer is per prototype rather than per trait.
    const initialized = protoMembers && new WeakSet();
    function init(inst, def) {
        if (!inst._zod) {
            _zodDesc.value = new Internals(def);
            try {
                Object.defineProperty(inst, "_zod", _zodDesc);
            }
            finally {
                // Cleared even on throw, so the shared descriptor never leaks one instance's internals into the next.
                _zodDesc.value = undefined;
            }
        }
        else if (inst._zod.traits.has(name)) {
            return;
        }
        inst._zod.traits.add(name);
        initializer(inst, def);
        if (initialized) {
            // `super(def)` from a user subclass gives `this` a prototype the subclass owns, and installing there would overwrite whatever the subclass declared. `constr` built the instance, so its prototype is the one below the subclass's that should carry the members. A receiver whose chain never reaches that prototype installs on its own, which for a plain object handed straight to `init` means `Object.prototype` — unchanged from before.
            const own = Object.getPrototypeOf(inst);
            const ctorProto = inst._zod.constr.prototype;
            let up = own;
            while (up && up !== ctorProto)
                up = Object.getPrototypeOf(up);
            const target = up ?? own;
            if (!initialized.has(target)) {
                initialized.add(target);
                members(target, protoMembers);
            }
        }
        // support prototype modifications; for-in avoids the array allocation of Object.keys on the (usually empty) prototype
        const proto = _.prototype;
        for (const k in proto) {
            if (!Object.prototype.hasOwnProperty.call(proto, k))
                continue;
            if (!(k in inst)) {
                inst[k] = proto[k].bind(inst);
            }
        }
    }
    // doesn't work if Parent has a constructor with arguments
    const Parent = params?.Parent ?? Object;
    class Definition extends Parent {
    }
    Object.defineProperty(Definition, "name", { value: name });
    function _(def) {
        const inst = params?.Parent ? newError(Definition) : this;
        init(inst, def);
        const deferred = inst._zod.deferred;
        if (deferred) {
            for (const fn of deferred) {
                fn();
            }
            // Released: initializers run once, and the list would otherwise be retained for the schema's lifetime.
            inst._zod.deferred = undefined;
        }
        // Global post-processor hook. Internal: installed by `import "zod/compile"` to enable AOT compilation for every constructed schema. Runs last, once the instance is fully built, because it hands the instance to compile(). The post-processor is expected to be reentrancy-guarded by its own implementation.
        const pp = globalThis.__zod_globalConfig?.postProcessor;
        if (pp)
            pp(inst);
        return inst;
    }
    Object.defineProperty(_, "init", { value: init });
    Object.defineProperty(_, Symbol.hasInstance, {
        value: (inst) => {
            if (params?.Parent && inst instanceof params.Parent)
                return true;
            return inst?._zod?.traits?.has(name);
        },
    });
    Object.defineProperty(_, "name", { value: name });
    return _;
}
//////////////////////////////   UTILITIES   ///////////////////////////////////////
const $brand = /*@__PURE__*/ (/* unused pure expression or super */ null && (Symbol("zod_brand")));
class $ZodAsyncError extends Error {
    constructor() {
        super(`Encountered Promise during synchronous parse. Use .parseAsync() instead.`);
    }
}
class $ZodEncodeError extends Error {
    constructor(name) {
        super(`Encountered unidirectional transform during encode: ${name}`);
        this.name = "ZodEncodeError";
    }
}
(_a = globalThis).__zod_globalConfig ?? (_a.__zod_globalConfig = {});
const globalConfig = globalThis.__zod_globalConfig;
function config(newConfig) {
    if (newConfig)
        Object.assign(globalConfig, newConfig);
    return globalConfig;
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/memoizer.js

class $ZodCyclicError extends Error {
    constructor() {
        super(`Cannot parse a reference cycle that closes through a transform`);
        this.name = "ZodCyclicError";
    }
}
/** Keyed off the context object every schema in one parse call already shares. */
const STATE = "~memo";
const NO_ISSUES = [];
// a value a cycle can close through
function isRef(value) {
    return value !== null && typeof value === "object";
}
// Receivers prefix paths in place, so the cache and every hand-out need their own copies.
function cloneIssues(issues) {
    return issues.map((iss) => (iss.path ? { ...iss, path: iss.path.slice() } : { ...iss }));
}
const recursive = /*@__PURE__*/ new WeakMap();
/** What the walk established, in order of certainty: ordered so the strongest answer among children wins. */
const NONE = 0;
const ASSUMED = 1;
const PROVEN = 2;
/** Whether this schema's subtree contains a cycle, so one parse can re-enter it. */
function isRecursive(inst, stack, resolve) {
    const cached = recursive.get(inst);
    if (cached !== undefined)
        return cached ? PROVEN : NONE;
    // Relative to the walk in progress, so not cached.
    if (stack.has(inst))
        return PROVEN;
    stack.add(inst);
    let result = NONE;
    const check = (child) => {
        if (result !== PROVEN && child?._zod) {
            const answer = isRecursive(child, stack, resolve);
            if (answer > result)
                result = answer;
        }
    };
    // `Reflect.ownKeys` rather than `Object.keys`, so a cycle through a declared symbol key is still seen
    const shape = (sh, spread) => {
        let answer = NONE;
        for (const key of Reflect.ownKeys(sh)) {
            const desc = Object.getOwnPropertyDescriptor(sh, key);
            // an object resolves its shape by spread, so a key it does not enumerate is never parsed; `z.properties` reads every own key and so keeps them all
            if (spread && !desc.enumerable)
                continue;
            // resolving runs user code, and a factory mints a fresh subtree per read, so an edge the walk can't follow counts as a cycle
            const child = desc.get ? ASSUMED : desc.value?._zod ? isRecursive(desc.value, stack, resolve) : NONE;
            if (child > answer)
                answer = child;
        }
        return answer;
    };
    const merge = (answer) => {
        if (answer > result)
            result = answer;
    };
    const def = inst._zod.def;
    const kind = def.type;
    switch (kind) {
        case "object": {
            const raw = rawShape(def);
            // a def with no raw shape answers `shape` from an accessor of its own, and running that can mint a whole fresh subtree
            merge(raw ? shape(raw, true) : ASSUMED);
            check(def.catchall);
            break;
        }
        case "array":
            check(def.element);
            break;
        case "tuple":
            for (const el of def.items)
                check(el);
            check(def.rest);
            break;
        case "record":
        case "map":
            check(def.keyType);
            check(def.valueType);
            break;
        case "set":
            check(def.valueType);
            break;
        case "union":
            for (const el of def.options)
                check(el);
            break;
        case "intersection":
            check(def.left);
            check(def.right);
            break;
        case "optional":
        case "nullable":
        case "default":
        case "prefault":
        case "catch":
        case "readonly":
        case "nonoptional":
        case "promise":
        case "success":
            check(def.innerType);
            break;
        case "pipe":
            check(def.in);
            check(def.out);
            break;
        case "function":
            check(def.input);
            check(def.output);
            break;
        // `$ZodLazy` caches its inner on the def, so a resolved edge is followed exactly
        case "lazy": {
            const inner = def._cachedInner ?? (resolve ? inst._zod.innerType : undefined);
            // walked with resolution off: one hop sees past the deferral, and a lazy that yields only another unresolved lazy is generative, so it stops there
            merge(inner ? isRecursive(inner, stack, false) : ASSUMED);
            break;
        }
        // a leaf by choice: `parts` are regex fragments, not data positions
        case "template_literal":
        // leaves
        case "string":
        case "number":
        case "int":
        case "boolean":
        case "bigint":
        case "symbol":
        case "undefined":
        case "null":
        case "void":
        case "never":
        case "any":
        case "unknown":
        case "date":
        case "nan":
        case "enum":
        case "literal":
        case "file":
        case "transform":
        case "custom":
            break;
        default: {
            // a new built-in kind becomes a compile error here
            kind;
            // a user-defined kind can still hold children, and only its author knows where, so fall back to scanning the def — skipping accessors, since reading one can run user code
            for (const key in def) {
                const desc = Object.getOwnPropertyDescriptor(def, key);
                if (!desc || desc.get)
                    continue;
                const value = desc.value;
                if (!value || typeof value !== "object")
                    continue;
                if (value._zod)
                    check(value);
                else if (Array.isArray(value))
                    for (const el of value)
                        check(el);
            }
        }
    }
    stack.delete(inst);
    return settle(inst, result);
}
/** An assumed answer must not outlive the resolution that settles it, so only a certain one is cached. */
function settle(inst, answer) {
    if (answer !== ASSUMED)
        recursive.set(inst, answer === PROVEN);
    return answer;
}
/**
 * Whether one parse can re-enter this schema, i.e. its subtree contains a cycle.
 * Exported for `z.compile`, which refuses to compile such a schema: cycle
 * breaking is driven from here off state keyed on the parse context, and a
 * generated fast path has no context to key on.
 */
function isRecursiveSchema(inst) {
    // z.compile never parses, so nothing would ever resolve a lazy for it; it runs once and already treats a throw here as recursive
    return isRecursive(inst, new Set(), true) !== NONE;
}
function bucketFor(state, inst) {
    let bucket = state.buckets.get(inst);
    if (!bucket) {
        bucket = new WeakMap();
        state.buckets.set(inst, bucket);
    }
    return bucket;
}
// Set immediately before delegating to core and cleared immediately after, so `alloc` registers only for a visit this module is driving.
let handoff;
// Allocated but unfinished entries. `alloc` and the matching pop both happen in the synchronous part of a parse, so they nest even when children are async, and one stack serves every schema.
const memoizer_open = [];
const memo = {
    alloc(_inst, payload, empty) {
        const bucket = handoff;
        if (!bucket)
            return empty;
        handoff = undefined;
        const entry = { value: empty, issues: null };
        bucket.set(payload.value, entry);
        memoizer_open.push(entry);
        return empty;
    },
    guard(inst) {
        var _a;
        (_a = inst._zod).deferred ?? (_a.deferred = []);
        inst._zod.deferred.push(() => {
            const base = inst._zod.parse;
            const wrapped = (payload, ctx) => {
                // The value is a placeholder a back-edge is still waiting on, so the cycle closes through this transform. Its output can't exist in time to bind.
                if (ctx.direction !== "backward" && isBackEdge(ctx, payload.value))
                    throw new $ZodCyclicError();
                return base(payload, ctx);
            };
            inst._zod.parse = wrapped;
            if (inst._zod.run === base)
                inst._zod.run = wrapped;
        });
    },
    attach(inst) {
        var _a;
        let isRecursiveInst;
        let rechecked = false;
        // a recursive schema is re-entered many times per parse and its bucket never changes
        let lastCtx;
        let lastBucket;
        // Wraps `parse` in a deferred so it sees the container's final parse. Core's own deferred copies `parse` into `run` when there are no checks, and it ran first, so `run` is patched to match; with checks, `run` reads `parse` dynamically.
        (_a = inst._zod).deferred ?? (_a.deferred = []);
        inst._zod.deferred.push(() => {
            const base = inst._zod.parse;
            const wrapped = (payload, ctx) => {
                if (isRecursiveInst === undefined) {
                    const walked = isRecursive(inst, new Set(), false);
                    if (walked === NONE) {
                        // Nothing here can ever fire, so take it back out.
                        inst._zod.parse = base;
                        if (inst._zod.run === wrapped)
                            inst._zod.run = base;
                        return base(payload, ctx);
                    }
                    // this parse resolves the deferred edges on its own path, so ask once more before latching
                    if (walked === PROVEN || rechecked)
                        isRecursiveInst = true;
                    else
                        rechecked = true;
                }
                const input = payload.value;
                if (!isRef(input))
                    return base(payload, ctx);
                let state = ctx[STATE];
                if (!state) {
                    state = { buckets: new WeakMap(), backEdges: undefined };
                    ctx[STATE] = state;
                }
                let bucket;
                if (lastCtx === ctx) {
                    bucket = lastBucket;
                }
                else {
                    bucket = bucketFor(state, inst);
                    lastCtx = ctx;
                    lastBucket = bucket;
                }
                const hit = bucket.get(input);
                if (hit) {
                    payload.value = hit.value;
                    if (hit.issues) {
                        if (hit.issues.length)
                            payload.issues.push(...cloneIssues(hit.issues));
                    }
                    else {
                        // Still being parsed: its own checks cover it, so skip them here.
                        payload.memo = true;
                        state.backEdges ?? (state.backEdges = new WeakSet());
                        state.backEdges.add(hit.value);
                    }
                    return payload;
                }
                handoff = bucket;
                const depth = memoizer_open.length;
                const result = base(payload, ctx);
                handoff = undefined;
                // A container that rejected its input outright allocated nothing.
                const entry = memoizer_open.length > depth ? memoizer_open.pop() : undefined;
                // Both paths written out so the sync one allocates no closure. It runs once per node, and capturing here cost more than everything else combined.
                if (result instanceof Promise) {
                    return result.then((r) => {
                        if (entry)
                            entry.issues = r.issues.length ? cloneIssues(r.issues) : NO_ISSUES;
                        return r;
                    });
                }
                if (entry)
                    entry.issues = result.issues.length ? cloneIssues(result.issues) : NO_ISSUES;
                return result;
            };
            inst._zod.parse = wrapped;
            if (inst._zod.run === base)
                inst._zod.run = wrapped;
        });
    },
};
/** The memoizer that gives containers cycle support. `zod` installs it by default; `zod/mini` opts in with `config({ memoizer: memoizer() })`. */
function memoizer() {
    return memo;
}
/** Whether this value is a node a back-edge resolved to before it finished. */
function isBackEdge(ctx, value) {
    const backEdges = ctx[STATE]?.backEdges;
    return backEdges !== undefined && isRef(value) && backEdges.has(value);
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/regexes.js

/**
 * @deprecated CUID v1 is deprecated by its authors due to information leakage
 * (timestamps embedded in the id). Use {@link cuid2} instead.
 * See https://github.com/paralleldrive/cuid.
 */
const cuid = /^[cC][0-9a-z]{6,}$/;
const cuid2 = /^[0-9a-z]+$/;
const ulid = /^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$/;
const xid = /^[0-9a-vA-V]{20}$/;
const ksuid = /^[A-Za-z0-9]{27}$/;
const nanoid = /^[a-zA-Z0-9_-]{21}$/;
function nanoidOfLength(length) {
    return new RegExp(`^[a-zA-Z0-9_-]{${length}}$`);
}
/** ISO 8601-1 duration regex. Does not support the 8601-2 extensions like negative durations or fractional/negative components. */
const duration = /^P(?:(\d+W)|(?!.*W)(?=\d|T\d)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+([.,]\d+)?S)?)?)$/;
/** Implements ISO 8601-2 extensions like explicit +- prefixes, mixing weeks with other units, and fractional/negative components. */
const extendedDuration = /^[-+]?P(?!$)(?:(?:[-+]?\d+Y)|(?:[-+]?\d+[.,]\d+Y$))?(?:(?:[-+]?\d+M)|(?:[-+]?\d+[.,]\d+M$))?(?:(?:[-+]?\d+W)|(?:[-+]?\d+[.,]\d+W$))?(?:(?:[-+]?\d+D)|(?:[-+]?\d+[.,]\d+D$))?(?:T(?=[\d+-])(?:(?:[-+]?\d+H)|(?:[-+]?\d+[.,]\d+H$))?(?:(?:[-+]?\d+M)|(?:[-+]?\d+[.,]\d+M$))?(?:[-+]?\d+(?:[.,]\d+)?S)?)??$/;
/** A regex for any UUID-like identifier: 8-4-4-4-12 hex pattern */
const guid = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
/** Returns a regex for validating an RFC 9562/4122 UUID.
 *
 * @param version Optionally specify a version 1-8. If no version is specified, all versions are supported. */
const uuid = (version) => {
    if (!version)
        return /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
    return new RegExp(`^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-${version}[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12})$`);
};
const uuid4 = /*@__PURE__*/ (/* unused pure expression or super */ null && (uuid(4)));
const uuid6 = /*@__PURE__*/ (/* unused pure expression or super */ null && (uuid(6)));
const uuid7 = /*@__PURE__*/ (/* unused pure expression or super */ null && (uuid(7)));
/** Practical email validation */
const email = /^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$/;
/** Equivalent to the HTML5 input[type=email] validation implemented by browsers. Source: https://developer.mozilla.org/en-US/docs/Web/HTML/Element/input/email */
const html5Email = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
/** The classic emailregex.com regex for RFC 5322-compliant emails */
const rfc5322Email = /^(([^<>()\[\]\\.,;:\s@"]+(\.[^<>()\[\]\\.,;:\s@"]+)*)|(".+"))@((\[[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}])|(([a-zA-Z\-0-9]+\.)+[a-zA-Z]{2,}))$/;
/** A loose regex that allows Unicode characters, enforces length limits, and that's about it. */
const unicodeEmail = /^[^\s@"]{1,64}@[^\s@]{1,255}$/u;
const idnEmail = (/* unused pure expression or super */ null && (unicodeEmail));
const browserEmail = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
// from https://thekevinscott.com/emojis-in-javascript/#writing-a-regular-expression
// Single character class, not an alternation: the two properties overlap (U+1F9B0-U+1F9B3), so `(A|B)+` backtracks exponentially on a failed match. The leading lookahead then demands one anchor — a pictograph, a regional indicator, or the enclosing keycap — because `\p{Emoji_Component}` on its own covers ASCII digits, `#`, `*`, ZWJ, variation selectors and skin tone modifiers, none of which is an emoji without a base.
const _emoji = `^(?=[\\s\\S]*[\\p{Extended_Pictographic}\\p{Regional_Indicator}\\u20E3])[\\p{Extended_Pictographic}\\p{Emoji_Component}]+$`;
function emoji() {
    return new RegExp(_emoji, "u");
}
const ipv4 = /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])$/;
const ipv6 = /^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:))$/;
const mac = (delimiter) => {
    const escapedDelim = util.escapeRegex(delimiter ?? ":");
    return new RegExp(`^(?:[0-9A-F]{2}${escapedDelim}){5}[0-9A-F]{2}$|^(?:[0-9a-f]{2}${escapedDelim}){5}[0-9a-f]{2}$`);
};
const cidrv4 = /^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\/([0-9]|[1-2][0-9]|3[0-2])$/;
const cidrv6 = /^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:))\/(12[0-8]|1[01][0-9]|[1-9]?[0-9])$/;
// https://stackoverflow.com/questions/7860392/determine-if-string-is-in-base64-using-javascript
const base64 = /^$|^(?:[0-9a-zA-Z+/]{4})*(?:(?:[0-9a-zA-Z+/]{2}==)|(?:[0-9a-zA-Z+/]{3}=))?$/;
const base64url = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?$/;
// based on https://stackoverflow.com/questions/106179/regular-expression-to-match-dns-hostname-or-ip-address
// export const hostname: RegExp = /^([a-zA-Z0-9-]+\.)*[a-zA-Z0-9-]+$/;
const hostname = /^(?=.{1,253}\.?$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[-0-9a-zA-Z]{0,61}[0-9a-zA-Z])?)*\.?$/;
const domain = /^(?=.{1,253}$)([a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,63}$/;
const httpProtocol = /^https?$/;
// https://blog.stevenlevithan.com/archives/validate-phone-number#r4-3 (regex sans spaces) E.164: leading digit must be 1-9; total digits (excluding '+') between 7-15
const e164 = /^\+[1-9]\d{6,14}$/;
// Credit card shape: 12–19 digits, optionally separated by single spaces or single hyphens. ISO/IEC 7812 caps the PAN at 19 digits; 12 is the shortest issued length (Maestro).
const creditCard = /^\d(?:[ -]?\d){11,18}$/;
// ISO 4217 alpha codes from the SIX list, regenerated by scripts/update-iso-4217.ts
const currencyCode = /^(?:AED|AFN|ALL|AMD|AOA|ARS|AUD|AWG|AZN|BAM|BBD|BDT|BHD|BIF|BMD|BND|BOB|BOV|BRL|BSD|BTN|BWP|BYN|BZD|CAD|CDF|CHE|CHF|CHW|CLF|CLP|CNY|COP|COU|CRC|CUP|CVE|CZK|DJF|DKK|DOP|DZD|EGP|ERN|ETB|EUR|FJD|FKP|GBP|GEL|GHS|GIP|GMD|GNF|GTQ|GYD|HKD|HNL|HTG|HUF|IDR|ILS|INR|IQD|IRR|ISK|JMD|JOD|JPY|KES|KGS|KHR|KMF|KPW|KRW|KWD|KYD|KZT|LAK|LBP|LKR|LRD|LSL|LYD|MAD|MDL|MGA|MKD|MMK|MNT|MOP|MRU|MUR|MVR|MWK|MXN|MXV|MYR|MZN|NAD|NGN|NIO|NOK|NPR|NZD|OMR|PAB|PEN|PGK|PHP|PKR|PLN|PYG|QAR|RON|RSD|RUB|RWF|SAR|SBD|SCR|SDG|SEK|SGD|SHP|SLE|SOS|SRD|SSP|STN|SVC|SYP|SZL|THB|TJS|TMT|TND|TOP|TRY|TTD|TWD|TZS|UAH|UGX|USD|USN|UYI|UYU|UYW|UZS|VED|VES|VND|VUV|WST|XAD|XAF|XAG|XAU|XBA|XBB|XBC|XBD|XCD|XCG|XDR|XOF|XPD|XPF|XPT|XSU|XTS|XUA|XXX|YER|ZAR|ZMW|ZWG)$/;
// iban electronic format: 2-letter country, check digits 02-98 (the only values `98 - remainder` can produce), 11-30 bban characters
const iban = /^[A-Z]{2}(?!00|01|99)\d{2}[A-Z0-9]{11,30}$/;
const dateSource = `(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))`;
/** Anchors a pattern source. The interpolation lives here rather than at the call site because
 * esbuild will not drop a `@__PURE__` call whose own argument interpolates a variable, but it
 * will drop `anchor(dateSource)`. Keeping it inline pinned `date` into every bundle. */
function regexes_anchor(source) {
    return new RegExp(`^${source}$`);
}
const date = /*@__PURE__*/ regexes_anchor(dateSource);
function timeSource(args) {
    const hhmm = `(?:[01]\\d|2[0-3]):[0-5]\\d`;
    const regex = typeof args.precision === "number"
        ? args.precision === -1
            ? `${hhmm}`
            : args.precision === 0
                ? `${hhmm}:[0-5]\\d`
                : `${hhmm}:[0-5]\\d\\.\\d{${args.precision}}`
        : args.seconds
            ? `${hhmm}:[0-5]\\d(?:\\.\\d+)?`
            : `${hhmm}(?::[0-5]\\d(?:\\.\\d+)?)?`;
    return regex;
}
function time(args) {
    return new RegExp(`^${timeSource(args)}$`);
}
// Adapted from https://stackoverflow.com/a/3143231
function datetime(args) {
    const opts = ["Z"];
    // if (args.offset) opts.push(`([+-]\\d{2}:\\d{2})`);
    if (args.offset)
        opts.push(`([+-](?:[01]\\d|2[0-3]):[0-5]\\d)`);
    // RFC 3339 mandates seconds wherever the time carries a `Z` or an offset, so only the unqualified form `local` adds may omit them
    const qualified = `${timeSource({ precision: args.precision, seconds: true })}(?:${opts.join("|")})`;
    const timeRegex = args.local ? `${qualified}|${timeSource({ precision: args.precision })}` : qualified;
    return new RegExp(`^${dateSource}T(?:${timeRegex})$`);
}
// the unbounded form of `string()` as a literal, so every plain string shares one instance instead of building its own
const anyString = /^[\s\S]{0,}$/;
const string = (params) => {
    const regex = params ? `[\\s\\S]{${params?.minimum ?? 0},${params?.maximum ?? ""}}` : `[\\s\\S]*`;
    return new RegExp(`^${regex}$`);
};
const bigint = /^-?\d+n?$/;
const integer = /^-?\d+$/;
const number = /^-?\d+(?:\.\d+)?$/;
const regexes_boolean = /^(?:true|false)$/i;
const _null = /^null$/i;

const _undefined = /^undefined$/i;

// regex for string with no uppercase letters
const lowercase = /^[^A-Z]*$/;
// regex for string with no lowercase letters
const uppercase = /^[^a-z]*$/;
// regex for hexadecimal strings (any length)
const hex = /^[0-9a-fA-F]*$/;
// Hash regexes for different algorithms and encodings
// Helper function to create base64 regex with exact length and padding
function fixedBase64(bodyLength, padding) {
    return new RegExp(`^[A-Za-z0-9+/]{${bodyLength}}${padding}$`);
}
// Helper function to create base64url regex with exact length (no padding)
function fixedBase64url(length) {
    return new RegExp(`^[A-Za-z0-9_-]{${length}}$`);
}
// MD5 (16 bytes): base64 = 24 chars total (22 + "==")
const md5_hex = /^[0-9a-fA-F]{32}$/;
const md5_base64 = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64(22, "==")));
const md5_base64url = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64url(22)));
// SHA1 (20 bytes): base64 = 28 chars total (27 + "=")
const sha1_hex = /^[0-9a-fA-F]{40}$/;
const sha1_base64 = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64(27, "=")));
const sha1_base64url = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64url(27)));
// SHA256 (32 bytes): base64 = 44 chars total (43 + "=")
const sha256_hex = /^[0-9a-fA-F]{64}$/;
const sha256_base64 = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64(43, "=")));
const sha256_base64url = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64url(43)));
// SHA384 (48 bytes): base64 = 64 chars total (no padding)
const sha384_hex = /^[0-9a-fA-F]{96}$/;
const sha384_base64 = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64(64, "")));
const sha384_base64url = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64url(64)));
// SHA512 (64 bytes): base64 = 88 chars total (86 + "==")
const sha512_hex = /^[0-9a-fA-F]{128}$/;
const sha512_base64 = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64(86, "==")));
const sha512_base64url = /*@__PURE__*/ (/* unused pure expression or super */ null && (fixedBase64url(86)));

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/checks.js
// import { $ZodType } from "./schemas.js";



const $ZodCheck = /*@__PURE__*/ $constructor("$ZodCheck", (inst, def) => {
    var _a;
    inst._zod ?? (inst._zod = {});
    inst._zod.def = def;
    (_a = inst._zod).onattach ?? (_a.onattach = []);
});
/** Default `when` for size-based checks: run only on non-nullish values with a `size`. */
const _whenHasSize = (payload) => {
    const val = payload.value;
    return !util.nullish(val) && val.size !== undefined;
};
/** Default `when` for length-based checks: run only on non-nullish values with a `length`. */
const _whenHasLength = (payload) => {
    const val = payload.value;
    return !nullish(val) && val.length !== undefined;
};
const numericOriginMap = {
    number: "number",
    bigint: "bigint",
    object: "date",
};
const $ZodCheckLessThan = /*@__PURE__*/ $constructor("$ZodCheckLessThan", (inst, def) => {
    $ZodCheck.init(inst, def);
    const origin = numericOriginMap[typeof def.value];
    inst._zod.check = (payload) => {
        if (def.inclusive ? payload.value <= def.value : payload.value < def.value) {
            return;
        }
        payload.issues.push({
            origin: numericOriginMap[typeof payload.value] ?? origin,
            code: "too_big",
            maximum: typeof def.value === "object" ? def.value.getTime() : def.value,
            input: payload.value,
            inclusive: def.inclusive,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckGreaterThan = /*@__PURE__*/ $constructor("$ZodCheckGreaterThan", (inst, def) => {
    $ZodCheck.init(inst, def);
    const origin = numericOriginMap[typeof def.value];
    inst._zod.check = (payload) => {
        if (def.inclusive ? payload.value >= def.value : payload.value > def.value) {
            return;
        }
        payload.issues.push({
            origin: numericOriginMap[typeof payload.value] ?? origin,
            code: "too_small",
            minimum: typeof def.value === "object" ? def.value.getTime() : def.value,
            input: payload.value,
            inclusive: def.inclusive,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckMultipleOf = 
/*@__PURE__*/ $constructor("$ZodCheckMultipleOf", (inst, def) => {
    $ZodCheck.init(inst, def);
    inst._zod.check = (payload) => {
        if (typeof payload.value !== typeof def.value)
            throw new Error("Cannot mix number and bigint in multiple_of check.");
        const isMultiple = typeof payload.value === "bigint"
            ? // `value % 0n` throws, and nothing is a multiple of zero — the number branch already fails this way via NaN
                def.value !== BigInt(0) && payload.value % def.value === BigInt(0)
            : floatSafeRemainder(payload.value, def.value) === 0;
        if (isMultiple)
            return;
        payload.issues.push({
            origin: typeof payload.value,
            code: "not_multiple_of",
            divisor: def.value,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckNumberFormat = /*@__PURE__*/ $constructor("$ZodCheckNumberFormat", (inst, def) => {
    $ZodCheck.init(inst, def); // no format checks
    def.format = def.format || "float64";
    const isInt = def.format?.includes("int");
    const origin = isInt ? "int" : "number";
    const [minimum, maximum] = NUMBER_FORMAT_RANGES[def.format];
    inst._zod.check = (payload) => {
        const input = payload.value;
        if (isInt) {
            if (!Number.isInteger(input)) {
                // invalid_format issue
                // payload.issues.push({
                //   expected: def.format,
                //   format: def.format,
                //   code: "invalid_format",
                //   input,
                //   inst,
                // });
                // invalid_type issue
                payload.issues.push({
                    expected: origin,
                    format: def.format,
                    code: "invalid_type",
                    continue: false,
                    input,
                    inst,
                });
                return;
                // not_multiple_of issue
                // payload.issues.push({
                //   code: "not_multiple_of",
                //   origin: "number",
                //   input,
                //   inst,
                //   divisor: 1,
                // });
            }
            if (!Number.isSafeInteger(input)) {
                if (input > 0) {
                    // too_big
                    payload.issues.push({
                        input,
                        code: "too_big",
                        maximum: Number.MAX_SAFE_INTEGER,
                        note: "Integers must be within the safe integer range.",
                        inst,
                        origin,
                        inclusive: true,
                        continue: !def.abort,
                    });
                }
                else {
                    // too_small
                    payload.issues.push({
                        input,
                        code: "too_small",
                        minimum: Number.MIN_SAFE_INTEGER,
                        note: "Integers must be within the safe integer range.",
                        inst,
                        origin,
                        inclusive: true,
                        continue: !def.abort,
                    });
                }
                return;
            }
        }
        if (input < minimum) {
            payload.issues.push({
                origin: "number",
                input,
                code: "too_small",
                minimum,
                inclusive: true,
                inst,
                continue: !def.abort,
            });
        }
        if (input > maximum) {
            payload.issues.push({
                origin: "number",
                input,
                code: "too_big",
                maximum,
                inclusive: true,
                inst,
                continue: !def.abort,
            });
        }
    };
});
const $ZodCheckBigIntFormat = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCheckBigIntFormat", (inst, def) => {
    $ZodCheck.init(inst, def); // no format checks
    const [minimum, maximum] = util.BIGINT_FORMAT_RANGES[def.format];
    inst._zod.check = (payload) => {
        const input = payload.value;
        if (input < minimum) {
            payload.issues.push({
                origin: "bigint",
                input,
                code: "too_small",
                minimum: minimum,
                inclusive: true,
                inst,
                continue: !def.abort,
            });
        }
        if (input > maximum) {
            payload.issues.push({
                origin: "bigint",
                input,
                code: "too_big",
                maximum,
                inclusive: true,
                inst,
                continue: !def.abort,
            });
        }
    };
})));
const $ZodCheckMaxSize = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCheckMaxSize", (inst, def) => {
    var _a;
    $ZodCheck.init(inst, def);
    (_a = inst._zod.def).when ?? (_a.when = _whenHasSize);
    inst._zod.check = (payload) => {
        const input = payload.value;
        const size = input.size;
        if (size <= def.maximum)
            return;
        payload.issues.push({
            origin: util.getSizableOrigin(input),
            code: "too_big",
            maximum: def.maximum,
            inclusive: true,
            input,
            inst,
            continue: !def.abort,
        });
    };
})));
const $ZodCheckMinSize = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCheckMinSize", (inst, def) => {
    var _a;
    $ZodCheck.init(inst, def);
    (_a = inst._zod.def).when ?? (_a.when = _whenHasSize);
    inst._zod.check = (payload) => {
        const input = payload.value;
        const size = input.size;
        if (size >= def.minimum)
            return;
        payload.issues.push({
            origin: util.getSizableOrigin(input),
            code: "too_small",
            minimum: def.minimum,
            inclusive: true,
            input,
            inst,
            continue: !def.abort,
        });
    };
})));
const $ZodCheckSizeEquals = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCheckSizeEquals", (inst, def) => {
    var _a;
    $ZodCheck.init(inst, def);
    (_a = inst._zod.def).when ?? (_a.when = _whenHasSize);
    inst._zod.check = (payload) => {
        const input = payload.value;
        const size = input.size;
        if (size === def.size)
            return;
        const tooBig = size > def.size;
        payload.issues.push({
            origin: util.getSizableOrigin(input),
            ...(tooBig ? { code: "too_big", maximum: def.size } : { code: "too_small", minimum: def.size }),
            inclusive: true,
            exact: true,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
})));
const $ZodCheckMaxLength = /*@__PURE__*/ $constructor("$ZodCheckMaxLength", (inst, def) => {
    var _a;
    $ZodCheck.init(inst, def);
    (_a = inst._zod.def).when ?? (_a.when = _whenHasLength);
    inst._zod.check = (payload) => {
        const input = payload.value;
        const units = input.length;
        // Strings are measured in Unicode code points, not UTF-16 units. A code point is at most two units, so a string that already fits in units fits in code points; only an overflow has to be counted.
        const length = typeof input === "string" && units > def.maximum ? codePointLength(input) : units;
        if (length <= def.maximum)
            return;
        const origin = getLengthableOrigin(input);
        payload.issues.push({
            origin,
            code: "too_big",
            maximum: def.maximum,
            inclusive: true,
            input,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckMinLength = /*@__PURE__*/ $constructor("$ZodCheckMinLength", (inst, def) => {
    var _a;
    $ZodCheck.init(inst, def);
    (_a = inst._zod.def).when ?? (_a.when = _whenHasLength);
    inst._zod.check = (payload) => {
        const input = payload.value;
        const units = input.length;
        // A code point is one or two UTF-16 units, so fewer units than the floor can never reach it and twice the floor always clears it. Only in between is the exact count in doubt.
        const length = typeof input === "string" && units >= def.minimum && units < def.minimum * 2
            ? codePointLength(input)
            : units;
        if (length >= def.minimum)
            return;
        const origin = getLengthableOrigin(input);
        payload.issues.push({
            origin,
            code: "too_small",
            minimum: def.minimum,
            inclusive: true,
            input,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckLengthEquals = /*@__PURE__*/ $constructor("$ZodCheckLengthEquals", (inst, def) => {
    var _a;
    $ZodCheck.init(inst, def);
    (_a = inst._zod.def).when ?? (_a.when = _whenHasLength);
    inst._zod.check = (payload) => {
        const input = payload.value;
        const units = input.length;
        // A code point is one or two UTF-16 units, so outside `[length, length * 2]` units the target is missed either way — and missed in the same direction in both measures.
        const length = typeof input === "string" && units >= def.length && units <= def.length * 2
            ? codePointLength(input)
            : units;
        if (length === def.length)
            return;
        const origin = getLengthableOrigin(input);
        const tooBig = length > def.length;
        payload.issues.push({
            origin,
            ...(tooBig ? { code: "too_big", maximum: def.length } : { code: "too_small", minimum: def.length }),
            inclusive: true,
            exact: true,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckStringFormat = /*@__PURE__*/ $constructor("$ZodCheckStringFormat", (inst, def) => {
    var _a, _b;
    $ZodCheck.init(inst, def);
    if (def.pattern)
        (_a = inst._zod).check ?? (_a.check = (payload) => {
            def.pattern.lastIndex = 0;
            if (def.pattern.test(payload.value))
                return;
            payload.issues.push({
                origin: "string",
                code: "invalid_format",
                format: def.format,
                input: payload.value,
                ...(def.pattern ? { pattern: def.pattern.toString() } : {}),
                inst,
                continue: !def.abort,
            });
        });
    else
        (_b = inst._zod).check ?? (_b.check = () => { });
});
const $ZodCheckRegex = /*@__PURE__*/ $constructor("$ZodCheckRegex", (inst, def) => {
    $ZodCheckStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        def.pattern.lastIndex = 0;
        if (def.pattern.test(payload.value))
            return;
        payload.issues.push({
            origin: "string",
            code: "invalid_format",
            format: "regex",
            input: payload.value,
            pattern: def.pattern.toString(),
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckLowerCase = /*@__PURE__*/ $constructor("$ZodCheckLowerCase", (inst, def) => {
    def.pattern ?? (def.pattern = lowercase);
    $ZodCheckStringFormat.init(inst, def);
});
const $ZodCheckUpperCase = /*@__PURE__*/ $constructor("$ZodCheckUpperCase", (inst, def) => {
    def.pattern ?? (def.pattern = uppercase);
    $ZodCheckStringFormat.init(inst, def);
});
const $ZodCheckIncludes = /*@__PURE__*/ $constructor("$ZodCheckIncludes", (inst, def) => {
    $ZodCheck.init(inst, def);
    const escapedRegex = escapeRegex(def.includes);
    // `String.prototype.includes(sub, position)` matches `sub` at `position`
    // OR LATER, so the pattern must allow at least `position` leading chars
    // (`{N,}`), not exactly `position` chars (`{N}`).
    const pattern = new RegExp(typeof def.position === "number" ? `^.{${def.position},}${escapedRegex}` : escapedRegex);
    def.pattern = pattern;
    inst._zod.check = (payload) => {
        if (payload.value.includes(def.includes, def.position))
            return;
        payload.issues.push({
            origin: "string",
            code: "invalid_format",
            format: "includes",
            includes: def.includes,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckStartsWith = /*@__PURE__*/ $constructor("$ZodCheckStartsWith", (inst, def) => {
    $ZodCheck.init(inst, def);
    const pattern = new RegExp(`^${escapeRegex(def.prefix)}.*`);
    def.pattern ?? (def.pattern = pattern);
    inst._zod.check = (payload) => {
        if (payload.value.startsWith(def.prefix))
            return;
        payload.issues.push({
            origin: "string",
            code: "invalid_format",
            format: "starts_with",
            prefix: def.prefix,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCheckEndsWith = /*@__PURE__*/ $constructor("$ZodCheckEndsWith", (inst, def) => {
    $ZodCheck.init(inst, def);
    const pattern = new RegExp(`.*${escapeRegex(def.suffix)}$`);
    def.pattern ?? (def.pattern = pattern);
    inst._zod.check = (payload) => {
        if (payload.value.endsWith(def.suffix))
            return;
        payload.issues.push({
            origin: "string",
            code: "invalid_format",
            format: "ends_with",
            suffix: def.suffix,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
///////////////////////////////////
/////    $ZodCheckProperty    /////
///////////////////////////////////
function handleCheckPropertyResult(result, payload, property) {
    if (result.issues.length) {
        payload.issues.push(...prefixIssues(property, result.issues));
    }
}
const $ZodCheckProperty = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCheckProperty", (inst, def) => {
    $ZodCheck.init(inst, def);
    inst._zod.check = (payload) => {
        const result = def.schema._zod.run({
            value: payload.value[def.property],
            issues: [],
        }, {});
        if (result instanceof Promise) {
            return result.then((result) => handleCheckPropertyResult(result, payload, def.property));
        }
        handleCheckPropertyResult(result, payload, def.property);
        return;
    };
})));
const $ZodCheckProperties = /*@__PURE__*/ $constructor("$ZodCheckProperties", (inst, def) => {
    $ZodCheck.init(inst, def);
    hide(inst, Symbol.iterator, function* () {
        yield inst;
    });
    // key and schema snapshotted together: reading one live and the other cached lets a later mutation of the caller's shape object pair a stale key with a missing schema
    let entries;
    inst._zod.check = (payload) => {
        // the base schema already typed the value, so only a nullish one is rejected here: the properties read on a primitive too, matching z.property() on a string's length
        if (payload.value == null) {
            payload.issues.push({ expected: "object", code: "invalid_type", input: payload.value, inst });
            return undefined;
        }
        entries ?? (entries = Reflect.ownKeys(def.shape).map((key) => [key, def.shape[key]]));
        const input = payload.value;
        let proms;
        for (const [key, schema] of entries) {
            const result = schema._zod.run({ value: input[key], issues: [] }, {});
            if (result instanceof Promise) {
                proms ?? (proms = []);
                proms.push(result.then((result) => handleCheckPropertyResult(result, payload, key)));
            }
            else {
                handleCheckPropertyResult(result, payload, key);
            }
        }
        if (proms)
            return Promise.all(proms).then(() => undefined);
        return undefined;
    };
});
const $ZodCheckMimeType = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCheckMimeType", (inst, def) => {
    $ZodCheck.init(inst, def);
    const mimeSet = new Set(def.mime);
    inst._zod.check = (payload) => {
        if (mimeSet.has(payload.value.type))
            return;
        payload.issues.push({
            code: "invalid_value",
            values: def.mime,
            input: payload.value.type,
            inst,
            continue: !def.abort,
        });
    };
})));
const $ZodCheckOverwrite = /*@__PURE__*/ $constructor("$ZodCheckOverwrite", (inst, def) => {
    $ZodCheck.init(inst, def);
    inst._zod.check = (payload) => {
        payload.value = def.tx(payload.value);
    };
});

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/doc.js
class Doc {
    constructor(args = [], closed = {}) {
        this.content = [];
        this.indent = 0;
        this.args = args;
        this.closed = closed;
    }
    // the compiler catches a child's throw and keeps writing into this doc, so the indent has to unwind with it
    indented(fn) {
        this.indent += 1;
        try {
            fn(this);
        }
        finally {
            this.indent -= 1;
        }
    }
    write(arg) {
        if (typeof arg === "function") {
            arg(this, { execution: "sync" });
            arg(this, { execution: "async" });
            return;
        }
        const content = arg;
        const lines = content.split("\n").filter((x) => x);
        const minIndent = Math.min(...lines.map((x) => x.length - x.trimStart().length));
        const dedented = lines.map((x) => x.slice(minIndent)).map((x) => " ".repeat(this.indent * 2) + x);
        for (const line of dedented) {
            this.content.push(line);
        }
    }
    compile() {
        const F = Function;
        const content = this?.content ?? [``];
        const factory = new F(...Object.keys(this.closed), `return function (${this.args.join(", ")}) {\n${content.join("\n")}\n};`);
        return factory(...Object.values(this.closed));
    }
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/versions.js
const version = {
    major: 4,
    minor: 6,
    patch: 7,
};

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/schemas.js







const $ZodType = /*@__PURE__*/ $constructor("$ZodType", (inst, def) => {
    var _a;
    inst ?? (inst = {});
    inst._zod.def = def; // set _def property
    inst._zod.bag = inst._zod.bag || {}; // initialize _bag object
    inst._zod.version = version;
    const defChecks = inst._zod.def.checks;
    // if inst is itself a checks.$ZodCheck, run it as a check
    const checks = inst._zod.traits.has("$ZodCheck")
        ? [inst, ...(defChecks ?? [])]
        : defChecks?.length
            ? [...defChecks]
            : [];
    for (const ch of checks) {
        for (const fn of ch._zod.onattach) {
            fn(inst);
        }
    }
    if (checks.length === 0) {
        // deferred initializer inst._zod.parse is not yet defined
        (_a = inst._zod).deferred ?? (_a.deferred = []);
        inst._zod.deferred?.push(() => {
            inst._zod.run = inst._zod.parse;
        });
    }
    else {
        const runChecks = (payload, checks, ctx) => {
            if (payload.memo)
                return payload;
            let isAborted = aborted(payload);
            let asyncResult;
            for (const ch of checks) {
                if (ch._zod.def.when) {
                    if (explicitlyAborted(payload))
                        continue;
                    const shouldRun = ch._zod.def.when(payload);
                    if (!shouldRun)
                        continue;
                }
                else if (isAborted) {
                    continue;
                }
                const currLen = payload.issues.length;
                const _ = ch._zod.check(payload);
                if (_ instanceof Promise && ctx?.async === false) {
                    throw new $ZodAsyncError();
                }
                if (asyncResult || _ instanceof Promise) {
                    asyncResult = (asyncResult ?? Promise.resolve()).then(async () => {
                        await _;
                        const nextLen = payload.issues.length;
                        if (nextLen === currLen)
                            return;
                        attachSchema(payload.issues, currLen, inst);
                        if (!isAborted)
                            isAborted = aborted(payload, currLen);
                    });
                }
                else {
                    const nextLen = payload.issues.length;
                    if (nextLen === currLen)
                        continue;
                    attachSchema(payload.issues, currLen, inst);
                    if (!isAborted)
                        isAborted = aborted(payload, currLen);
                }
            }
            if (asyncResult) {
                return asyncResult.then(() => {
                    return payload;
                });
            }
            return payload;
        };
        const handleCanaryResult = (canary, payload, ctx) => {
            // abort if the canary is aborted
            if (aborted(canary)) {
                canary.aborted = true;
                return canary;
            }
            // run checks first, then
            const checkResult = runChecks(payload, checks, ctx);
            if (checkResult instanceof Promise) {
                if (ctx.async === false)
                    throw new $ZodAsyncError();
                return checkResult.then((checkResult) => inst._zod.parse(checkResult, ctx));
            }
            return inst._zod.parse(checkResult, ctx);
        };
        inst._zod.run = (payload, ctx) => {
            if (ctx.skipChecks) {
                return inst._zod.parse(payload, ctx);
            }
            if (ctx.direction === "backward") {
                // run canary initial pass (no checks)
                const canary = inst._zod.parse({ value: payload.value, issues: [] }, { ...ctx, skipChecks: true });
                if (canary instanceof Promise) {
                    return canary.then((canary) => {
                        return handleCanaryResult(canary, payload, ctx);
                    });
                }
                return handleCanaryResult(canary, payload, ctx);
            }
            // forward
            const result = inst._zod.parse(payload, ctx);
            if (result instanceof Promise) {
                if (ctx.async === false)
                    throw new $ZodAsyncError();
                return result.then((result) => runChecks(result, checks, ctx));
            }
            return runChecks(result, checks, ctx);
        };
    }
}, {
    // Wrappers extend this by installing a richer factory over it; reading it eagerly would defeat the laziness.
    get "~standard"() {
        return hide(this, "~standard", standardProps(this));
    },
    set "~standard"(value) {
        own(this, "~standard", value);
    },
});
/** The Standard Schema surface for `inst`. Shared so wrappers can extend it without forcing it. */
// a Standard Schema result only reports issues, so a failure finalizes them straight off the raw payload: no ZodError, and no lazy result to read through
const toStandardResult = (r, ctx) => r.issues.length ? { issues: r.issues.map((iss) => finalizeIssue(iss, ctx, config())) } : { value: r.value };
async function validateAsync(inst, value) {
    const ctx = { async: true };
    return toStandardResult((await inst._zod.run({ value, issues: [] }, ctx)), ctx);
}
function standardProps(inst) {
    return {
        validate: (value) => {
            const ctx = { async: false };
            try {
                const r = inst._zod.run({ value, issues: [] }, ctx);
                if (!(r instanceof Promise))
                    return toStandardResult(r, ctx);
            }
            catch (_) { }
            // async function so a synchronously throwing check rejects instead of escaping validate
            return validateAsync(inst, value);
        },
        vendor: "zod",
        version: 1,
    };
}

const $ZodString = /*@__PURE__*/ $constructor("$ZodString", (inst, def) => {
    $ZodType.init(inst, def);
    // a format's own pattern, else unbounded; a template literal derives the check-aware form itself
    inst._zod.pattern = def.pattern ?? anyString;
    inst._zod.parse = (payload, _) => {
        if (def.coerce)
            try {
                payload.value = String(payload.value);
            }
            catch (_) { }
        if (typeof payload.value === "string")
            return payload;
        payload.issues.push({
            expected: "string",
            code: "invalid_type",
            input: payload.value,
            inst,
        });
        return payload;
    };
});
const $ZodStringFormat = /*@__PURE__*/ $constructor("$ZodStringFormat", (inst, def) => {
    // check initialization must come first
    $ZodCheckStringFormat.init(inst, def);
    $ZodString.init(inst, def);
});
const $ZodGUID = /*@__PURE__*/ $constructor("$ZodGUID", (inst, def) => {
    def.pattern ?? (def.pattern = guid);
    $ZodStringFormat.init(inst, def);
});
const $ZodUUID = /*@__PURE__*/ $constructor("$ZodUUID", (inst, def) => {
    if (def.version) {
        const versionMap = {
            v1: 1,
            v2: 2,
            v3: 3,
            v4: 4,
            v5: 5,
            v6: 6,
            v7: 7,
            v8: 8,
        };
        const v = versionMap[def.version];
        if (v === undefined)
            throw new Error(`Invalid UUID version: "${def.version}"`);
        def.pattern ?? (def.pattern = uuid(v));
    }
    else
        def.pattern ?? (def.pattern = uuid());
    $ZodStringFormat.init(inst, def);
});
const $ZodEmail = /*@__PURE__*/ $constructor("$ZodEmail", (inst, def) => {
    def.pattern ?? (def.pattern = email);
    $ZodStringFormat.init(inst, def);
});
/** The `://` guard rejected the input before the URL constructor saw it. */
const URL_BAD_FORMAT = 1;
/** The URL parser rejected the input. */
const URL_UNPARSEABLE = 2;
function canParseURL(input) {
    try {
        if (typeof URL !== "undefined" && typeof URL.canParse === "function")
            return URL.canParse(input);
        new URL(input);
        return true;
    }
    catch {
        return false;
    }
}
function validateURL(trimmed, def) {
    if (!("normalize" in def) && !("hostname" in def) && !("protocol" in def)) {
        return canParseURL(trimmed) || URL_UNPARSEABLE;
    }
    return parseURLObject(trimmed, def);
}
/** Parses a URL while preserving the non-normalizing HTTP guard. */
function parseURLObject(trimmed, def) {
    // When normalize is off, require :// for http/https URLs. This prevents strings like "http:example.com" or "https:/path" from being silently accepted
    if (!def.normalize && def.protocol?.source === httpProtocol.source && !/^https?:\/\//i.test(trimmed)) {
        return URL_BAD_FORMAT;
    }
    try {
        if (typeof URL !== "undefined") {
            const URLStatic = URL;
            if (typeof URLStatic.parse === "function")
                return URLStatic.parse(trimmed) ?? URL_UNPARSEABLE;
        }
        // @ts-ignore
        return new URL(trimmed);
    }
    catch {
        return URL_UNPARSEABLE;
    }
}
const asciiTabOrNewline = /[\t\n\r]/g;
/** The URL parser deletes every ASCII tab, LF and CR from its input before it parses, so `new URL("https://exa\nmple.com")` reports on `example.com`. Applying the same deletion to the returned value closes the half of that divergence which can move the host; the parser's other rewrite, stripping C0 controls at the edges, cannot. */
function stripTabAndNewline(value) {
    return value.replace(asciiTabOrNewline, "");
}
function urlHostnameOk(url, hostname) {
    hostname.lastIndex = 0;
    return hostname.test(url.hostname);
}
function urlProtocolOk(url, protocol) {
    protocol.lastIndex = 0;
    return protocol.test(url.protocol.endsWith(":") ? url.protocol.slice(0, -1) : url.protocol);
}
const $ZodURL = /*@__PURE__*/ $constructor("$ZodURL", (inst, def) => {
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        try {
            // Trim whitespace from input
            const trimmed = payload.value.trim();
            const url = validateURL(trimmed, def);
            if (url === URL_BAD_FORMAT) {
                payload.issues.push({
                    code: "invalid_format",
                    format: "url",
                    note: "Invalid URL format",
                    input: payload.value,
                    inst,
                    continue: !def.abort,
                });
                return;
            }
            if (url === URL_UNPARSEABLE) {
                payload.issues.push({
                    code: "invalid_format",
                    format: "url",
                    input: payload.value,
                    inst,
                    continue: !def.abort,
                });
                return;
            }
            if (url === true) {
                payload.value = stripTabAndNewline(trimmed);
                return;
            }
            if (def.hostname && !urlHostnameOk(url, def.hostname)) {
                payload.issues.push({
                    code: "invalid_format",
                    format: "url",
                    note: "Invalid hostname",
                    pattern: def.hostname.source,
                    input: payload.value,
                    inst,
                    continue: !def.abort,
                });
            }
            if (def.protocol && !urlProtocolOk(url, def.protocol)) {
                payload.issues.push({
                    code: "invalid_format",
                    format: "url",
                    note: "Invalid protocol",
                    pattern: def.protocol.source,
                    input: payload.value,
                    inst,
                    continue: !def.abort,
                });
            }
            // Set the output value based on normalize flag
            payload.value = def.normalize ? url.href : stripTabAndNewline(trimmed);
            return;
        }
        catch (_) {
            payload.issues.push({
                code: "invalid_format",
                format: "url",
                input: payload.value,
                inst,
                continue: !def.abort,
            });
        }
    };
});
const $ZodEmoji = /*@__PURE__*/ $constructor("$ZodEmoji", (inst, def) => {
    def.pattern ?? (def.pattern = emoji());
    $ZodStringFormat.init(inst, def);
});
const $ZodNanoID = /*@__PURE__*/ $constructor("$ZodNanoID", (inst, def) => {
    if (def.length !== undefined && (!Number.isInteger(def.length) || def.length < 1))
        throw new Error(`Invalid nanoid length: ${def.length}`);
    def.pattern ?? (def.pattern = def.length === undefined ? nanoid : nanoidOfLength(def.length));
    $ZodStringFormat.init(inst, def);
});
/**
 * @deprecated CUID v1 is deprecated by its authors due to information leakage
 * (timestamps embedded in the id). Use {@link $ZodCUID2} instead.
 * See https://github.com/paralleldrive/cuid.
 */
const $ZodCUID = /*@__PURE__*/ $constructor("$ZodCUID", (inst, def) => {
    def.pattern ?? (def.pattern = cuid);
    $ZodStringFormat.init(inst, def);
});
const $ZodCUID2 = /*@__PURE__*/ $constructor("$ZodCUID2", (inst, def) => {
    def.pattern ?? (def.pattern = cuid2);
    $ZodStringFormat.init(inst, def);
});
const $ZodULID = /*@__PURE__*/ $constructor("$ZodULID", (inst, def) => {
    def.pattern ?? (def.pattern = ulid);
    $ZodStringFormat.init(inst, def);
});
const $ZodXID = /*@__PURE__*/ $constructor("$ZodXID", (inst, def) => {
    def.pattern ?? (def.pattern = xid);
    $ZodStringFormat.init(inst, def);
});
const $ZodKSUID = /*@__PURE__*/ $constructor("$ZodKSUID", (inst, def) => {
    def.pattern ?? (def.pattern = ksuid);
    $ZodStringFormat.init(inst, def);
});
const $ZodISODateTime = /*@__PURE__*/ $constructor("$ZodISODateTime", (inst, def) => {
    def.pattern ?? (def.pattern = datetime(def));
    $ZodStringFormat.init(inst, def);
});
const $ZodISODate = /*@__PURE__*/ $constructor("$ZodISODate", (inst, def) => {
    def.pattern ?? (def.pattern = date);
    $ZodStringFormat.init(inst, def);
});
const $ZodISOTime = /*@__PURE__*/ $constructor("$ZodISOTime", (inst, def) => {
    def.pattern ?? (def.pattern = time(def));
    $ZodStringFormat.init(inst, def);
});
const $ZodISODuration = /*@__PURE__*/ $constructor("$ZodISODuration", (inst, def) => {
    def.pattern ?? (def.pattern = duration);
    $ZodStringFormat.init(inst, def);
});
const $ZodIPv4 = /*@__PURE__*/ $constructor("$ZodIPv4", (inst, def) => {
    def.pattern ?? (def.pattern = ipv4);
    $ZodStringFormat.init(inst, def);
});
/** An IPv6 address is written with hex digits, colons and dots, and nothing else. The guard is what makes the check below an IPv6 check: `new URL("http://[...]")` parses an authority, not an address, so `@` and `\` re-delimit it and `"::@1\\"` validates against the host `0.0.0.1`. The URL parser also deletes ASCII tab, LF and CR rather than failing, which is how `"::1\n"` validated as `::1`. */
const ipv6Alphabet = /^[0-9a-fA-F:.]+$/;
function isValidIPv6(value) {
    if (!ipv6Alphabet.test(value))
        return false;
    return canParseURL(`http://[${value}]`);
}
const $ZodIPv6 = /*@__PURE__*/ $constructor("$ZodIPv6", (inst, def) => {
    def.pattern ?? (def.pattern = ipv6);
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (!isValidIPv6(payload.value)) {
            payload.issues.push({
                code: "invalid_format",
                format: "ipv6",
                input: payload.value,
                inst,
                continue: !def.abort,
            });
        }
    };
});
const $ZodMAC = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodMAC", (inst, def) => {
    def.pattern ?? (def.pattern = regexes.mac(def.delimiter));
    $ZodStringFormat.init(inst, def);
})));
const $ZodCIDRv4 = /*@__PURE__*/ $constructor("$ZodCIDRv4", (inst, def) => {
    def.pattern ?? (def.pattern = cidrv4);
    $ZodStringFormat.init(inst, def);
});
function isValidCIDRv6(value) {
    const parts = value.split("/");
    if (parts.length !== 2)
        return false;
    const [address, prefix] = parts;
    if (!prefix)
        return false;
    const prefixNum = Number(prefix);
    if (`${prefixNum}` !== prefix)
        return false;
    if (prefixNum < 0 || prefixNum > 128)
        return false;
    return isValidIPv6(address);
}
const $ZodCIDRv6 = /*@__PURE__*/ $constructor("$ZodCIDRv6", (inst, def) => {
    def.pattern ?? (def.pattern = cidrv6); // not used for validation
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (!isValidCIDRv6(payload.value)) {
            payload.issues.push({
                code: "invalid_format",
                format: "cidrv6",
                input: payload.value,
                inst,
                continue: !def.abort,
            });
        }
    };
});
//////////////////////////////   ZodBase64   //////////////////////////////
function isValidBase64(data) {
    if (data === "")
        return true;
    // atob ignores whitespace, so reject it up front.
    if (/\s/.test(data))
        return false;
    if (data.length % 4 !== 0)
        return false;
    try {
        // @ts-ignore
        atob(data);
        return true;
    }
    catch {
        return false;
    }
}
// lax on purpose: the quantified regexes.base64 overflows the regex stack on multi-MB input and its leading ^$| alternation leaks through template-literal composition; isValidBase64 enforces length and padding
const base64Charset = /^[0-9a-zA-Z+/]*={0,2}$/;
const $ZodBase64 = /*@__PURE__*/ $constructor("$ZodBase64", (inst, def) => {
    def.pattern ?? (def.pattern = base64Charset);
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (isValidBase64(payload.value))
            return;
        payload.issues.push({
            code: "invalid_format",
            format: "base64",
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
//////////////////////////////   ZodBase64URL   //////////////////////////////
// lax on purpose: the quantified regexes.base64url overflows the regex stack on multi-MB input; isValidBase64 enforces length on the padded string
const base64urlCharset = /^[A-Za-z0-9_-]*$/;
function isValidBase64URL(data) {
    if (!base64urlCharset.test(data))
        return false;
    const base64 = data.replace(/[-_]/g, (c) => (c === "-" ? "+" : "/"));
    const padded = base64.padEnd(Math.ceil(base64.length / 4) * 4, "=");
    return isValidBase64(padded);
}
const $ZodBase64URL = /*@__PURE__*/ $constructor("$ZodBase64URL", (inst, def) => {
    def.pattern ?? (def.pattern = base64urlCharset);
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (isValidBase64URL(payload.value))
            return;
        payload.issues.push({
            code: "invalid_format",
            format: "base64url",
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodE164 = /*@__PURE__*/ $constructor("$ZodE164", (inst, def) => {
    def.pattern ?? (def.pattern = e164);
    $ZodStringFormat.init(inst, def);
});
//////////////////////////////   ZodCreditCard   //////////////////////////////
const CC_SANITIZE = /[- ]/g;
/** Luhn checksum on a digit-only string. Adapted from valibot (MIT). */
function isLuhnAlgo(digits) {
    let length = digits.length;
    let bit = 1;
    let sum = 0;
    while (length) {
        const value = digits.charCodeAt(--length) - 48;
        bit ^= 1;
        sum += bit ? [0, 2, 4, 6, 8, 1, 3, 5, 7, 9][value] : value;
    }
    return sum % 10 === 0;
}
function isValidCreditCard(input) {
    if (!regexes.creditCard.test(input))
        return false;
    return isLuhnAlgo(input.replace(CC_SANITIZE, ""));
}
const $ZodCreditCard = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCreditCard", (inst, def) => {
    // Shape only — the Luhn check below is not expressible as a pattern, so consumers of `pattern` (JSON Schema, template literals) get the length and separator rules alone.
    def.pattern ?? (def.pattern = regexes.creditCard);
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (isValidCreditCard(payload.value))
            return;
        payload.issues.push({
            code: "invalid_format",
            format: "credit_card",
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
})));
//////////////////////////////   ZodIBAN   //////////////////////////////
// iso 7064 mod 97-10 checksum without BigInt
function isIso7064Mod97(iban) {
    let remainder = 0;
    const len = iban.length;
    for (let i = 4; i < len; i++) {
        const code = iban.charCodeAt(i);
        remainder = (code >= 65 ? remainder * 100 + (code - 55) : remainder * 10 + (code - 48)) % 97;
    }
    for (let i = 0; i < 4; i++) {
        const code = iban.charCodeAt(i);
        remainder = (code >= 65 ? remainder * 100 + (code - 55) : remainder * 10 + (code - 48)) % 97;
    }
    return remainder === 1;
}
function isValidIBAN(input) {
    if (!regexes.iban.test(input))
        return false;
    return isIso7064Mod97(input);
}
const $ZodIBAN = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodIBAN", (inst, def) => {
    // shape only — checksum is not expressible as a pattern
    def.pattern ?? (def.pattern = regexes.iban);
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (isValidIBAN(payload.value))
            return;
        payload.issues.push({
            code: "invalid_format",
            format: "iban",
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
})));
//////////////////////////////   ZodJWT   //////////////////////////////
function isValidJWT(token, algorithm = null) {
    try {
        const tokensParts = token.split(".");
        if (tokensParts.length !== 3)
            return false;
        const [header] = tokensParts;
        if (!header)
            return false;
        // @ts-ignore
        const parsedHeader = JSON.parse(atob(header));
        if ("typ" in parsedHeader && parsedHeader?.typ !== "JWT")
            return false;
        if (!parsedHeader.alg)
            return false;
        if (algorithm && (!("alg" in parsedHeader) || parsedHeader.alg !== algorithm))
            return false;
        return true;
    }
    catch {
        return false;
    }
}
const $ZodJWT = /*@__PURE__*/ $constructor("$ZodJWT", (inst, def) => {
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (isValidJWT(payload.value, def.alg))
            return;
        payload.issues.push({
            code: "invalid_format",
            format: "jwt",
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
});
const $ZodCustomStringFormat = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCustomStringFormat", (inst, def) => {
    $ZodStringFormat.init(inst, def);
    inst._zod.check = (payload) => {
        if (def.fn(payload.value))
            return;
        payload.issues.push({
            code: "invalid_format",
            format: def.format,
            input: payload.value,
            inst,
            continue: !def.abort,
        });
    };
})));
const $ZodNumber = /*@__PURE__*/ $constructor("$ZodNumber", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.pattern = number;
    inst._zod.parse = (payload, _ctx) => {
        if (def.coerce)
            try {
                payload.value = Number(payload.value);
            }
            catch (_) { }
        const input = payload.value;
        if (typeof input === "number" && !Number.isNaN(input) && Number.isFinite(input)) {
            return payload;
        }
        const received = typeof input === "number"
            ? Number.isNaN(input)
                ? "NaN"
                : !Number.isFinite(input)
                    ? String(input)
                    : undefined
            : undefined;
        payload.issues.push({
            expected: "number",
            code: "invalid_type",
            input,
            inst,
            ...(received ? { received } : {}),
        });
        return payload;
    };
});
const $ZodNumberFormat = /*@__PURE__*/ $constructor("$ZodNumberFormat", (inst, def) => {
    $ZodCheckNumberFormat.init(inst, def);
    $ZodNumber.init(inst, def); // no format checks
});
const $ZodBoolean = /*@__PURE__*/ $constructor("$ZodBoolean", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.pattern = regexes_boolean;
    inst._zod.parse = (payload, _ctx) => {
        if (def.coerce)
            try {
                payload.value = Boolean(payload.value);
            }
            catch (_) { }
        const input = payload.value;
        if (typeof input === "boolean")
            return payload;
        payload.issues.push({
            expected: "boolean",
            code: "invalid_type",
            input,
            inst,
        });
        return payload;
    };
});
const $ZodBigInt = /*@__PURE__*/ $constructor("$ZodBigInt", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.pattern = bigint;
    inst._zod.parse = (payload, _ctx) => {
        if (def.coerce)
            try {
                payload.value = BigInt(payload.value);
            }
            catch (_) { }
        if (typeof payload.value === "bigint")
            return payload;
        payload.issues.push({
            expected: "bigint",
            code: "invalid_type",
            input: payload.value,
            inst,
        });
        return payload;
    };
});
const $ZodBigIntFormat = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodBigIntFormat", (inst, def) => {
    checks.$ZodCheckBigIntFormat.init(inst, def);
    $ZodBigInt.init(inst, def); // no format checks
})));
const $ZodSymbol = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodSymbol", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        if (typeof input === "symbol")
            return payload;
        payload.issues.push({
            expected: "symbol",
            code: "invalid_type",
            input,
            inst,
        });
        return payload;
    };
})));
const $ZodUndefined = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodUndefined", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.pattern = regexes.undefined;
    inst._zod.values = new Set([undefined]);
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        if (typeof input === "undefined")
            return payload;
        payload.issues.push({
            expected: "undefined",
            code: "invalid_type",
            input,
            inst,
        });
        return payload;
    };
})));
const $ZodNull = /*@__PURE__*/ $constructor("$ZodNull", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.pattern = _null;
    inst._zod.values = new Set([null]);
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        if (input === null)
            return payload;
        payload.issues.push({
            expected: "null",
            code: "invalid_type",
            input,
            inst,
        });
        return payload;
    };
});
const $ZodAny = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodAny", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload) => payload;
})));
const $ZodUnknown = /*@__PURE__*/ $constructor("$ZodUnknown", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload) => payload;
});
const $ZodNever = /*@__PURE__*/ $constructor("$ZodNever", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _ctx) => {
        payload.issues.push({
            expected: "never",
            code: "invalid_type",
            input: payload.value,
            inst,
        });
        return payload;
    };
});
const $ZodVoid = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodVoid", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        if (typeof input === "undefined")
            return payload;
        payload.issues.push({
            expected: "void",
            code: "invalid_type",
            input,
            inst,
        });
        return payload;
    };
})));
const $ZodDate = /*@__PURE__*/ $constructor("$ZodDate", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _ctx) => {
        if (def.coerce) {
            try {
                payload.value = new Date(payload.value);
            }
            catch (_err) { }
        }
        const input = payload.value;
        const isDate = input instanceof Date;
        const isValidDate = isDate && !Number.isNaN(input.getTime());
        if (isValidDate)
            return payload;
        payload.issues.push({
            expected: "date",
            code: "invalid_type",
            input,
            ...(isDate ? { received: "Invalid Date" } : {}),
            inst,
        });
        return payload;
    };
});
// an oversized container fails its leading size checks before any element is parsed
function capSize(inst, size) {
    const caps = sizeCaps(inst._zod.def.checks);
    if (!caps.length)
        return;
    const cap = Math.min(...caps.map((c) => c[0]));
    const parse = inst._zod.parse;
    inst._zod.parse = (payload, ctx) => {
        const n = size(payload.value);
        if (n > cap && !ctx?.skipChecks && ctx?.direction !== "backward") {
            for (const [max, ch] of sizeCaps(inst._zod.def.checks)) {
                if (n > max && ch._zod.def.when(payload)) {
                    const start = payload.issues.length;
                    ch._zod.check(payload);
                    // the value is still the raw input, so no later check may read it
                    payload.issues[start].continue = false;
                    attachSchema(payload.issues, start, inst);
                    return payload;
                }
            }
        }
        return parse(payload, ctx);
    };
}
const arraySize = (input) => (Array.isArray(input) ? input.length : -1);
const mapSize = (input) => (input instanceof Map ? input.size : -1);
const setSize = (input) => (input instanceof Set ? input.size : -1);
function handleArrayResult(result, final, index) {
    if (result.issues.length) {
        final.issues.push(...prefixIssues(index, result.issues));
    }
    final.value[index] = result.value;
}
const $ZodArray = /*@__PURE__*/ $constructor("$ZodArray", (inst, def) => {
    $ZodType.init(inst, def);
    const memo = globalConfig.memoizer;
    memo?.attach(inst);
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        if (!Array.isArray(input)) {
            payload.issues.push({
                expected: "array",
                code: "invalid_type",
                input,
                inst,
            });
            return payload;
        }
        payload.value = memo ? memo.alloc(inst, payload, Array(input.length), ctx) : Array(input.length);
        const proms = [];
        const abortEarly = ctx?.abortEarly;
        for (let i = 0; i < input.length; i++) {
            const item = input[i];
            const result = def.element._zod.run({
                value: item,
                issues: [],
            }, ctx);
            if (result instanceof Promise) {
                proms.push(result.then((result) => handleArrayResult(result, payload, i)));
            }
            else {
                handleArrayResult(result, payload, i);
                // the element's payload is authoritative here, since handleArrayResult forwards every issue; an object's is not, because it drops a failed absent optional
                if (abortEarly && result.issues.length !== 0 && aborted(result))
                    break;
            }
        }
        if (proms.length) {
            return Promise.all(proms).then(() => payload);
        }
        return payload; //handleArrayResultsAsync(parseResults, final);
    };
    capSize(inst, arraySize);
});
function handlePropertyResult(result, final, key, input, optin, optout) {
    const isPresent = key in input;
    const isOptionalOut = optout === "optional";
    // The middle rung means "absence permitted, nothing supplied in its place", so an absent key contributes nothing — whatever the schema made of `undefined` is invented, not substituted. Only `optional` reaches this with a value: `defaulted` substitutes, and a schema that isn't optional-out has to keep the key.
    if (!isPresent && isOptionalOut && optin === "optional") {
        return;
    }
    if (result.issues.length) {
        // For optional-in/out schemas, ignore errors on absent keys.
        if (optin !== undefined && isOptionalOut && !isPresent) {
            return;
        }
        final.issues.push(...prefixIssues(key, result.issues));
    }
    if (!isPresent && optin === undefined) {
        if (!result.issues.length) {
            final.issues.push({
                code: "invalid_type",
                expected: "nonoptional",
                input: undefined,
                path: [key],
            });
        }
        return;
    }
    if (result.value === undefined) {
        if (isPresent || (optin === "defaulted" && !isOptionalOut)) {
            final.value[key] = undefined;
        }
    }
    else {
        final.value[key] = result.value;
    }
}
// one shared instance; a fresh [] per schema cost 56 bytes retained
const NO_SYMBOL_KEYS = [];
function normalizeDef(def) {
    const keys = Object.keys(def.shape);
    const ownSymbols = Object.getOwnPropertySymbols(def.shape);
    const symbolKeys = ownSymbols.length ? ownSymbols : NO_SYMBOL_KEYS;
    // aliases `keys` when there are no symbols, so a string-only shape keeps one array
    const allKeys = symbolKeys.length ? [...keys, ...symbolKeys] : keys;
    for (const k of allKeys) {
        if (!def.shape?.[k]?._zod?.traits?.has("$ZodType")) {
            throw new Error(`Invalid element at key "${String(k)}": expected a Zod schema`);
        }
    }
    const okeys = optionalKeys(def.shape);
    return {
        ...def,
        allKeys,
        symbolKeys,
        // string-only: handleCatchall matches it against `for...in`, which never yields a symbol
        keySet: new Set(keys),
        numKeys: keys.length,
        optionalKeys: new Set(okeys),
    };
}
function handleCatchall(proms, input, payload, ctx, def, inst, abortEarly) {
    const unrecognized = [];
    const keySet = def.keySet;
    const _catchall = def.catchall._zod;
    const t = _catchall.def.type;
    const optin = _catchall.optin;
    const optout = _catchall.optout;
    // starts at 0, not the current length: the shape phase already ran and may have aborted
    let seen = 0;
    for (const key in input) {
        if (abortEarly && payload.issues.length !== seen) {
            if (aborted(payload, seen))
                break;
            seen = payload.issues.length;
        }
        // Must precede the __proto__ branch: a declared key is not unrecognized, even though the shape loop deliberately strips __proto__ from the parsed output.
        if (keySet.has(key))
            continue;
        // Don't copy an undeclared __proto__ into the result; assignment to a plain {} would replace the result prototype. But in strict mode it is still an unknown key, so report it before skipping.
        if (key === "__proto__") {
            if (t === "never")
                unrecognized.push(key);
            continue;
        }
        if (t === "never") {
            unrecognized.push(key);
            continue;
        }
        const r = _catchall.run({ value: input[key], issues: [] }, ctx);
        if (r instanceof Promise) {
            proms.push(r.then((r) => handlePropertyResult(r, payload, key, input, optin, optout)));
        }
        else {
            handlePropertyResult(r, payload, key, input, optin, optout);
        }
    }
    if (unrecognized.length) {
        payload.issues.push({
            code: "unrecognized_keys",
            keys: unrecognized,
            input,
            inst,
            // Describes the shape of the input, not the validity of the parsed value, so it never aborts. The parse still fails; the schema's own checks just get to run first, and an enclosing intersection can reconcile the key against a sibling operand.
            continue: true,
        });
    }
    if (!proms.length)
        return payload;
    return Promise.all(proms).then(() => {
        return payload;
    });
}
const $ZodObject = /*@__PURE__*/ $constructor("$ZodObject", (inst, def) => {
    // requires cast because technically $ZodObject doesn't extend
    $ZodType.init(inst, def);
    const desc = Object.getOwnPropertyDescriptor(def, "shape");
    // a cloned def carries its source's accessor, which knows the shape it answers from; adopting that keeps the clone's keys readable without running it
    const sh = desc?.get ? desc.get.raw : (def.shape ?? {});
    if (sh) {
        // Freezes the shape on first read, so its getters resolve once and every later read sees the same schemas.
        const get = () => {
            const newSh = { ...sh };
            Object.defineProperty(def, "shape", { value: newSh });
            get.raw = newSh;
            return newSh;
        };
        get.raw = sh;
        Object.defineProperty(def, "shape", { get });
    }
    const _normalized = cached(() => normalizeDef(def));
    defineLazyInternal(inst, "propValues", (zod) => {
        const shape = zod.def.shape;
        const propValues = {};
        for (const key in shape) {
            const field = shape[key]._zod;
            if (field.values) {
                if (!Object.prototype.hasOwnProperty.call(propValues, key)) {
                    util_assignProp(propValues, key, new Set());
                }
                for (const v of field.values)
                    propValues[key].add(v);
                // An omittable slot reads back as undefined at a discriminator lookup, so it has to claim undefined: two options that can both omit the key are not discriminable on it.
                if (field.optin !== undefined)
                    propValues[key].add(undefined);
            }
        }
        return propValues;
    });
    const isObject = util_isObject;
    const catchall = def.catchall;
    let value;
    const memo = globalConfig.memoizer;
    memo?.attach(inst);
    inst._zod.parse = (payload, ctx) => {
        value ?? (value = _normalized.value);
        const input = payload.value;
        if (!isObject(input)) {
            payload.issues.push({
                expected: "object",
                code: "invalid_type",
                input,
                inst,
            });
            return payload;
        }
        payload.value = memo ? memo.alloc(inst, payload, {}, ctx) : {};
        const proms = [];
        const shape = value.shape;
        const abortEarly = ctx?.abortEarly;
        let seen = payload.issues.length;
        for (const key of value.allKeys) {
            if (abortEarly && payload.issues.length !== seen) {
                if (aborted(payload, seen))
                    break;
                seen = payload.issues.length;
            }
            if (key === "__proto__")
                continue;
            const el = shape[key];
            const optin = el._zod.optin;
            const optout = el._zod.optout;
            const r = el._zod.run({ value: input[key], issues: [] }, ctx);
            if (r instanceof Promise) {
                proms.push(r.then((r) => handlePropertyResult(r, payload, key, input, optin, optout)));
            }
            else {
                handlePropertyResult(r, payload, key, input, optin, optout);
            }
        }
        if (!catchall) {
            return proms.length ? Promise.all(proms).then(() => payload) : payload;
        }
        return handleCatchall(proms, input, payload, ctx, _normalized.value, inst, abortEarly === true);
    };
});
const $ZodObjectJIT = /*@__PURE__*/ $constructor("$ZodObjectJIT", (inst, def) => {
    // requires cast because technically $ZodObject doesn't extend
    $ZodObject.init(inst, def);
    const superParse = inst._zod.parse;
    const _normalized = cached(() => normalizeDef(def));
    const memo = globalConfig.memoizer;
    const generateFastpass = (shape) => {
        const normalized = _normalized.value;
        const syms = normalized.symbolKeys;
        // a symbol has no source literal, so it is read as `syms[i]` off the closed-over scope
        const doc = new Doc(["payload", "ctx"], { shape, inst, memo, syms });
        const parseStr = (k) => `shape[${k}]._zod.run({ value: input[${k}], issues: [] }, ctx)`;
        // prefixes in place, like util.prefixIssues. newResult must land before the early return: a catchall runs after this and would otherwise write onto the caller's input
        const prefixStr = (id, k) => `
          let ${id}_ab = false;
          for (let i = 0; i < ${id}.issues.length; i++) {
            const iss = ${id}.issues[i];
            iss.path = iss.path ? [${k}, ...iss.path] : [${k}];
            payload.issues.push(iss);
            if (iss.continue !== true) ${id}_ab = true;
          }
          if (${id}_ab && ctx && ctx.abortEarly) {
            payload.value = newResult;
            return payload;
          }`;
        doc.write(`const input = payload.value;`);
        const ids = Object.create(null);
        let counter = 0;
        for (const key of normalized.allKeys) {
            ids[key] = `key_${counter++}`;
        }
        // A: preserve key order {
        doc.write(memo ? `const newResult = memo.alloc(inst, payload, {}, ctx);` : `const newResult = {};`);
        for (const key of normalized.allKeys) {
            if (key === "__proto__")
                continue;
            const id = ids[key];
            const k = typeof key === "symbol" ? `syms[${syms.indexOf(key)}]` : esc(key);
            const isPresent = `${k} in input`;
            const schema = shape[key];
            const optin = schema?._zod?.optin;
            const isOptionalIn = optin !== undefined;
            const isOptionalOut = schema?._zod?.optout === "optional";
            doc.write(`const ${id} = ${parseStr(k)};`);
            if (isOptionalIn && isOptionalOut) {
                // For optional-in/out schemas, ignore errors on absent keys — and, like the interpreted path, drop the value produced alongside them. The middle rung goes further: it permits absence without supplying anything in its place, so an absent key contributes nothing at all.
                const assign = optin === "optional" ? `${id}_present` : `${id}.value !== undefined || ${id}_present`;
                doc.write(`
        const ${id}_present = ${isPresent};
        if (!${id}.issues.length || ${id}_present) {
          if (${id}.issues.length) {${prefixStr(id, k)}
          }

          if (${assign}) {
            newResult[${k}] = ${id}.value;
          }
        }

      `);
            }
            else if (!isOptionalIn) {
                doc.write(`
        const ${id}_present = ${isPresent};
        if (${id}.issues.length) {${prefixStr(id, k)}
        }
        if (!${id}_present && !${id}.issues.length) {
          payload.issues.push({
            code: "invalid_type",
            expected: "nonoptional",
            input: undefined,
            path: [${k}]
          });
          if (ctx && ctx.abortEarly) {
            payload.value = newResult;
            return payload;
          }
        }

        if (${id}_present) {
          newResult[${k}] = ${id}.value;
        }

      `);
            }
            else {
                doc.write(`
        if (${id}.issues.length) {${prefixStr(id, k)}
        }
      `);
                if (optin === "defaulted") {
                    doc.write(`newResult[${k}] = ${id}.value;`);
                }
                else {
                    doc.write(`
        if (${id}.value !== undefined || ${isPresent}) {
          newResult[${k}] = ${id}.value;
        }
      `);
                }
            }
        }
        doc.write(`payload.value = newResult;`);
        doc.write(`return payload;`);
        // closing `shape` in is what pays: turbofan specializes the parser against that one shape object, so every `shape[k]._zod.run` folds to a known callee. as a parameter it stays a generic load and measures 13% slower even with the forwarding frame gone
        return doc.compile();
    };
    let fastpass;
    const isObject = util_isObject;
    const jit = !globalConfig.jitless;
    const allowsEval = util_allowsEval;
    const fastEnabled = jit && allowsEval.value; // && !def.catchall;
    const catchall = def.catchall;
    let value;
    inst._zod.parse = (payload, ctx) => {
        value ?? (value = _normalized.value);
        const input = payload.value;
        if (!isObject(input)) {
            payload.issues.push({
                expected: "object",
                code: "invalid_type",
                input,
                inst,
            });
            return payload;
        }
        if (jit && fastEnabled && ctx?.async === false && ctx.jitless !== true) {
            // always synchronous
            if (!fastpass)
                fastpass = generateFastpass(def.shape);
            payload = fastpass(payload, ctx);
            if (!catchall)
                return payload;
            return handleCatchall([], input, payload, ctx, value, inst, ctx?.abortEarly === true);
        }
        return superParse(payload, ctx);
    };
});
function handleUnionResults(results, final, inst, ctx) {
    for (const result of results) {
        if (result.issues.length === 0) {
            final.value = result.value;
            return final;
        }
    }
    const nonaborted = results.filter((r) => !aborted(r));
    if (nonaborted.length === 1) {
        final.value = nonaborted[0].value;
        return nonaborted[0];
    }
    final.issues.push({
        code: "invalid_union",
        input: final.value,
        inst,
        errors: results.map((result) => result.issues.map((iss) => finalizeIssue(iss, ctx, config()))),
    });
    return final;
}
const $ZodUnion = /*@__PURE__*/ $constructor("$ZodUnion", (inst, def) => {
    $ZodType.init(inst, def);
    defineLazyInternal(inst, "optin", (zod) => zod.def.options.some((o) => o._zod.optin === "defaulted")
        ? "defaulted"
        : zod.def.options.some((o) => o._zod.optin !== undefined)
            ? "optional"
            : undefined);
    defineLazyInternal(inst, "optout", (zod) => zod.def.options.some((o) => o._zod.optout === "optional") ? "optional" : undefined);
    defineLazyInternal(inst, "values", (zod) => {
        if (zod.def.options.every((o) => o._zod.values)) {
            return new Set(zod.def.options.flatMap((option) => Array.from(option._zod.values)));
        }
        return undefined;
    });
    defineLazyInternal(inst, "pattern", (zod) => {
        if (zod.def.options.every((o) => o._zod.pattern)) {
            const patterns = zod.def.options.map((o) => o._zod.pattern);
            return new RegExp(`^(${patterns.map((p) => cleanRegex(p.source)).join("|")})$`);
        }
        return undefined;
    });
    const first = def.options.length === 1 ? def.options[0]._zod.run : null;
    inst._zod.parse = (payload, ctx) => {
        if (first) {
            return first(payload, ctx);
        }
        let async = false;
        const results = [];
        for (const option of def.options) {
            const result = option._zod.run({
                value: payload.value,
                issues: [],
            }, ctx);
            if (result instanceof Promise) {
                results.push(result);
                async = true;
            }
            else {
                if (result.issues.length === 0)
                    return result;
                results.push(result);
            }
        }
        if (!async)
            return handleUnionResults(results, payload, inst, ctx);
        return Promise.all(results).then((results) => {
            return handleUnionResults(results, payload, inst, ctx);
        });
    };
});
function handleExclusiveUnionResults(results, final, inst, ctx) {
    const matches = [];
    for (let i = 0; i < results.length; i++) {
        if (results[i].issues.length === 0)
            matches.push(i);
    }
    if (matches.length === 1) {
        final.value = results[matches[0]].value;
        return final;
    }
    if (matches.length === 0) {
        // No matches - same as regular union
        final.issues.push({
            code: "invalid_union",
            input: final.value,
            inst,
            errors: results.map((result) => result.issues.map((iss) => util.finalizeIssue(iss, ctx, core.config()))),
        });
    }
    else {
        // Multiple matches - exclusive union failure
        final.issues.push({
            code: "invalid_union",
            input: final.value,
            inst,
            errors: [],
            inclusive: false,
            matches,
        });
    }
    return final;
}
const $ZodXor = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodXor", (inst, def) => {
    $ZodUnion.init(inst, def);
    def.inclusive = false;
    const first = def.options.length === 1 ? def.options[0]._zod.run : null;
    inst._zod.parse = (payload, ctx) => {
        if (first) {
            return first(payload, ctx);
        }
        let async = false;
        const results = [];
        for (const option of def.options) {
            const result = option._zod.run({
                value: payload.value,
                issues: [],
            }, ctx);
            if (result instanceof Promise) {
                results.push(result);
                async = true;
            }
            else {
                results.push(result);
            }
        }
        if (!async)
            return handleExclusiveUnionResults(results, payload, inst, ctx);
        return Promise.all(results).then((results) => {
            return handleExclusiveUnionResults(results, payload, inst, ctx);
        });
    };
})));
/** Returns the option whose discriminator claims `value`, or throws if ambiguous. */
function getDiscriminatedOption(union, value) {
    const internals = union._zod;
    let map = internals.bag.optionsMap;
    if (!map) {
        map = discriminatorMap(internals.def);
        internals.bag.optionsMap = map;
    }
    const option = map.get(value);
    if (option === null)
        throw new Error(`Ambiguous discriminator value "${String(value)}"`);
    return option;
}
function discriminatorMap(def) {
    const map = new Map();
    for (const option of def.options) {
        const values = option._zod.propValues?.[def.discriminator];
        if (!values || values.size === 0)
            throw new Error(`Invalid discriminated union option at index "${def.options.indexOf(option)}"`);
        for (const value of values) {
            if (map.has(value)) {
                if (value !== undefined)
                    throw new Error(`Duplicate discriminator value "${String(value)}"`);
                // keep the collision marked so a later member cannot reclaim it
                map.set(value, null);
            }
            else {
                map.set(value, option);
            }
        }
    }
    return map;
}
const $ZodDiscriminatedUnion = 
/*@__PURE__*/
(/* unused pure expression or super */ null && (core.$constructor("$ZodDiscriminatedUnion", (inst, def) => {
    def.inclusive = false;
    $ZodUnion.init(inst, def);
    const _super = inst._zod.parse;
    util.defineLazyInternal(inst, "propValues", (zod) => {
        const propValues = {};
        let undefinedCount = 0;
        for (const option of zod.def.options) {
            const pv = option._zod.propValues;
            if (!pv || Object.keys(pv).length === 0)
                throw new Error(`Invalid discriminated union option at index "${zod.def.options.indexOf(option)}"`);
            if (pv[zod.def.discriminator]?.has(undefined))
                undefinedCount++;
            for (const [k, v] of Object.entries(pv)) {
                if (!Object.prototype.hasOwnProperty.call(propValues, k)) {
                    util.assignProp(propValues, k, new Set());
                }
                for (const val of v) {
                    propValues[k].add(val);
                }
            }
        }
        if (!zod.def.unionFallback && undefinedCount > 1)
            propValues[zod.def.discriminator]?.delete(undefined);
        return propValues;
    });
    // Checked now rather than in the lookup map below, so an option that lacks the discriminator fails at the `discriminatedUnion` call instead of on the first object parsed. Options whose shape cannot be enumerated without resolving it — pipes and lazies — are left to the map.
    def.options.forEach((option, i) => {
        const propShape = util.rawShape(option._zod.def);
        if (propShape && !Object.prototype.hasOwnProperty.call(propShape, def.discriminator)) {
            throw new Error(`Invalid discriminated union option at index "${i}"`);
        }
    });
    const disc = util.cached(() => discriminatorMap(def));
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        if (!util.isObject(input)) {
            payload.issues.push({
                code: "invalid_type",
                expected: "object",
                input,
                inst,
            });
            return payload;
        }
        const value = input?.[def.discriminator];
        const opt = disc.value.get(value);
        // forward metadata cannot choose an encoder for an absent tag
        if (opt && (value !== undefined || ctx.direction !== "backward")) {
            return opt._zod.run(payload, ctx);
        }
        // Fall back to union matching when the fast discriminator path fails:
        // - explicitly enabled via unionFallback, or
        // - during backward direction (encode), since codec-based discriminators have different values in forward vs backward directions
        if (def.unionFallback || ctx.direction === "backward") {
            return _super(payload, ctx);
        }
        // no matching discriminator
        payload.issues.push({
            code: "invalid_union",
            errors: [],
            note: "No matching discriminator",
            discriminator: def.discriminator,
            options: Array.from(disc.value.keys()).filter((value) => disc.value.get(value) !== null),
            input,
            path: [def.discriminator],
            inst,
        });
        return payload;
    };
})));
const $ZodIntersection = /*@__PURE__*/ $constructor("$ZodIntersection", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        const left = def.left._zod.run({ value: input, issues: [] }, ctx);
        const right = def.right._zod.run({ value: input, issues: [] }, ctx);
        const async = left instanceof Promise || right instanceof Promise;
        if (async) {
            return Promise.all([left, right]).then(([left, right]) => {
                return handleIntersectionResults(payload, left, right);
            });
        }
        return handleIntersectionResults(payload, left, right);
    };
});
function mergeValues(a, b) {
    // const aType = parse.t(a);
    // const bType = parse.t(b);
    if (a === b) {
        return { valid: true, data: a };
    }
    if (a instanceof Date && b instanceof Date && +a === +b) {
        return { valid: true, data: a };
    }
    if (isPlainObject(a) && isPlainObject(b)) {
        const bKeys = Object.keys(b);
        const sharedKeys = Object.keys(a).filter((key) => bKeys.indexOf(key) !== -1);
        const newObj = { ...a, ...b };
        if (Object.prototype.hasOwnProperty.call(newObj, "__proto__"))
            delete newObj.__proto__;
        for (const key of sharedKeys) {
            if (key === "__proto__")
                continue;
            const sharedValue = mergeValues(a[key], b[key]);
            if (!sharedValue.valid) {
                return {
                    valid: false,
                    mergeErrorPath: [key, ...sharedValue.mergeErrorPath],
                };
            }
            newObj[key] = sharedValue.data;
        }
        return { valid: true, data: newObj };
    }
    if (Array.isArray(a) && Array.isArray(b)) {
        if (a.length !== b.length) {
            return { valid: false, mergeErrorPath: [] };
        }
        const newArray = [];
        for (let index = 0; index < a.length; index++) {
            const itemA = a[index];
            const itemB = b[index];
            const sharedValue = mergeValues(itemA, itemB);
            if (!sharedValue.valid) {
                return {
                    valid: false,
                    mergeErrorPath: [index, ...sharedValue.mergeErrorPath],
                };
            }
            newArray.push(sharedValue.data);
        }
        return { valid: true, data: newArray };
    }
    return { valid: false, mergeErrorPath: [] };
}
function handleIntersectionResults(result, left, right) {
    // Track which side(s) reject each key. A key rejection is reported only when BOTH sides reject it, so a key owned by one branch survives the other's key schema. strictObject reports these as unrecognized_keys; a record with an open key schema reports one invalid_key per key.
    const unrecKeys = new Map();
    let unrecIssue;
    const keyIssues = new Map();
    const collect = (iss, side) => {
        let keys;
        if (iss.code === "unrecognized_keys" && !iss.path?.length) {
            unrecIssue ?? (unrecIssue = iss);
            keys = iss.keys;
        }
        else if (iss.code === "invalid_key" && iss.origin === "record" && iss.path?.length === 1) {
            const k = String(iss.path[0]);
            if (!keyIssues.has(k))
                keyIssues.set(k, iss);
            keys = [k];
        }
        else {
            return false;
        }
        for (const k of keys) {
            if (!unrecKeys.has(k))
                unrecKeys.set(k, {});
            unrecKeys.get(k)[side] = true;
        }
        return true;
    };
    for (const iss of left.issues) {
        if (!collect(iss, "l"))
            result.issues.push(iss);
    }
    for (const iss of right.issues) {
        if (!collect(iss, "r"))
            result.issues.push(iss);
    }
    // Report only keys rejected by BOTH sides
    const bothKeys = [...unrecKeys].filter(([, f]) => f.l && f.r).map(([k]) => k);
    if (bothKeys.length) {
        const aggregated = unrecIssue ? bothKeys.filter((k) => unrecIssue.keys.includes(k)) : [];
        if (aggregated.length)
            result.issues.push({ ...unrecIssue, keys: aggregated });
        for (const k of bothKeys) {
            if (!aggregated.includes(k) && keyIssues.has(k))
                result.issues.push(keyIssues.get(k));
        }
    }
    const merged = mergeValues(left.value, right.value);
    if (!merged.valid) {
        if (aborted(result))
            return result;
        throw new Error(`Unmergable intersection. Error path: ` + `${JSON.stringify(merged.mergeErrorPath)}`);
    }
    result.value = merged.data;
    return result;
}
const $ZodTuple = /*@__PURE__*/ $constructor("$ZodTuple", (inst, def) => {
    $ZodType.init(inst, def);
    const items = def.items;
    const memo = globalConfig.memoizer;
    memo?.attach(inst);
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        if (!Array.isArray(input)) {
            payload.issues.push({
                input,
                inst,
                expected: "tuple",
                code: "invalid_type",
            });
            return payload;
        }
        payload.value = memo ? memo.alloc(inst, payload, [], ctx) : [];
        const proms = [];
        const optinStart = getTupleOptStart(items, "optin");
        const optoutStart = getTupleOptStart(items, "optout");
        if (!def.rest) {
            if (input.length < optinStart) {
                payload.issues.push({
                    code: "too_small",
                    minimum: optinStart,
                    inclusive: true,
                    input,
                    inst,
                    origin: "array",
                });
                return payload;
            }
            if (input.length > items.length) {
                payload.issues.push({
                    code: "too_big",
                    maximum: items.length,
                    inclusive: true,
                    input,
                    inst,
                    origin: "array",
                });
            }
        }
        // Run every item in parallel, collecting results into an indexed array. The post-processing in `handleTupleResults` walks them in order so it can decide whether an absent optional-output error can truncate the tail or must be reported to preserve required output.
        const itemResults = new Array(items.length);
        // only tracked when there is a rest loop to skip
        const abortEarly = def.rest ? ctx?.abortEarly : undefined;
        let itemAborted = false;
        for (let i = 0; i < items.length; i++) {
            const r = items[i]._zod.run({ value: input[i], issues: [] }, ctx);
            if (r instanceof Promise) {
                proms.push(r.then((rr) => {
                    itemResults[i] = rr;
                }));
            }
            else {
                itemResults[i] = r;
                if (abortEarly && !itemAborted && r.issues.length)
                    itemAborted = aborted(r);
            }
        }
        // sound because rest is non-empty exactly when every fixed index is present, the one case handleTupleResults cannot discard an item's issues
        if (def.rest && !itemAborted) {
            let i = items.length - 1;
            const rest = input.slice(items.length);
            let seen = payload.issues.length;
            for (const el of rest) {
                if (abortEarly && payload.issues.length !== seen) {
                    if (aborted(payload, seen))
                        break;
                    seen = payload.issues.length;
                }
                i++;
                const result = def.rest._zod.run({ value: el, issues: [] }, ctx);
                if (result instanceof Promise) {
                    proms.push(result.then((r) => handleTupleResult(r, payload, i)));
                }
                else {
                    handleTupleResult(result, payload, i);
                }
            }
        }
        if (proms.length) {
            return Promise.all(proms).then(() => handleTupleResults(itemResults, payload, items, input, optoutStart));
        }
        return handleTupleResults(itemResults, payload, items, input, optoutStart);
    };
});
function getTupleOptStart(items, key) {
    for (let i = items.length - 1; i >= 0; i--) {
        // optin is a three-rung ladder so any rung above `undefined` permits an absent slot; optout stays two-valued.
        const omittable = key === "optin" ? items[i]._zod.optin !== undefined : items[i]._zod.optout === "optional";
        if (!omittable)
            return i + 1;
    }
    return 0;
}
function handleTupleResult(result, final, index) {
    if (result.issues.length) {
        final.issues.push(...prefixIssues(index, result.issues));
    }
    final.value[index] = result.value;
}
function handleTupleResults(itemResults, final, items, input, optoutStart) {
    // Walk results in order. Mirror $ZodObject's swallow-on-absent-optional rule, but only after `optoutStart`: the first index where the output tuple tail can be absent.
    for (let i = 0; i < items.length; i++) {
        const r = itemResults[i];
        const isPresent = i < input.length;
        // The array analog of `handlePropertyResult`'s absent-key early return: the middle rung permits absence without supplying anything in its place, so the tail truncates here instead of materializing whatever the item made of `undefined`.
        if (!isPresent && i >= optoutStart && items[i]._zod.optin === "optional") {
            final.value.length = i;
            break;
        }
        if (r.issues.length) {
            if (!isPresent && i >= optoutStart) {
                final.value.length = i;
                break;
            }
            final.issues.push(...prefixIssues(i, r.issues));
        }
        final.value[i] = r.value;
    }
    // Drop trailing slots that produced `undefined` for absent input
    // (the array analog of an absent optional key on an object). The
    // `i >= input.length` floor is critical: an explicit `undefined`
    // *inside* the input must be preserved even when the schema is
    // optional-out (e.g. `z.string().or(z.undefined())` accepting an
    // explicit undefined value).
    for (let i = final.value.length - 1; i >= input.length; i--) {
        if (items[i]._zod.optout === "optional" && final.value[i] === undefined) {
            final.value.length = i;
        }
        else {
            break;
        }
    }
    return final;
}
const $ZodRecord = /*@__PURE__*/ $constructor("$ZodRecord", (inst, def) => {
    $ZodType.init(inst, def);
    const memo = globalConfig.memoizer;
    memo?.attach(inst);
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        if (!isPlainObject(input)) {
            payload.issues.push({
                expected: "record",
                code: "invalid_type",
                input,
                inst,
            });
            return payload;
        }
        // no guard in either loop below: a record's invalid_key aborts but an enclosing intersection can reconcile it, so a stopped loop hides keys the sibling does not own and the intersection then rejects nothing
        const proms = [];
        const values = def.keyType._zod.values;
        if (values && !def.partial) {
            payload.value = memo ? memo.alloc(inst, payload, {}, ctx) : {};
            const recordKeys = new Set();
            for (const key of values) {
                if (typeof key === "string" || typeof key === "number" || typeof key === "symbol") {
                    recordKeys.add(typeof key === "number" ? key.toString() : key);
                    // A declared __proto__ is stripped but is not an unrecognized key.
                    if (key === "__proto__")
                        continue;
                    const keyResult = def.keyType._zod.run({ value: key, issues: [] }, ctx);
                    if (keyResult instanceof Promise) {
                        throw new Error("Async schemas not supported in object keys currently");
                    }
                    if (keyResult.issues.length) {
                        payload.issues.push({
                            code: "invalid_key",
                            origin: "record",
                            issues: keyResult.issues.map((iss) => finalizeIssue(iss, ctx, config())),
                            input: key,
                            path: [key],
                            inst,
                        });
                        continue;
                    }
                    const outKey = keyResult.value;
                    if (outKey === "__proto__")
                        continue;
                    const result = def.valueType._zod.run({ value: input[key], issues: [] }, ctx);
                    if (result instanceof Promise) {
                        proms.push(result.then((result) => {
                            if (result.issues.length) {
                                payload.issues.push(...prefixIssues(key, result.issues));
                            }
                            payload.value[outKey] = result.value;
                        }));
                    }
                    else {
                        if (result.issues.length) {
                            payload.issues.push(...prefixIssues(key, result.issues));
                        }
                        payload.value[outKey] = result.value;
                    }
                }
            }
            let unrecognized;
            for (const key in input) {
                if (!recordKeys.has(key)) {
                    if (def.mode === "loose") {
                        // skip __proto__ so it can't replace the result prototype via the assignment setter on the plain {} we build into
                        if (key === "__proto__")
                            continue;
                        payload.value[key] = input[key];
                    }
                    else {
                        unrecognized = unrecognized ?? [];
                        unrecognized.push(key);
                    }
                }
            }
            if (unrecognized && unrecognized.length > 0) {
                payload.issues.push({
                    code: "unrecognized_keys",
                    input,
                    inst,
                    keys: unrecognized,
                    continue: true,
                });
            }
        }
        else {
            payload.value = memo ? memo.alloc(inst, payload, {}, ctx) : {};
            // An enumerable key schema declares which keys the record owns, so a key outside the set is unrecognized. A non-enumerable one (regex, refine) is a constraint every key must satisfy, so a failing key is invalid. Only the former is reconcilable against the other side of an intersection.
            let unrecognized;
            // Reflect.ownKeys for Symbol-key support; filter non-enumerable to match z.object()
            for (const key of Reflect.ownKeys(input)) {
                if (key === "__proto__")
                    continue;
                if (!Object.prototype.propertyIsEnumerable.call(input, key))
                    continue;
                let keyResult = def.keyType._zod.run({ value: key, issues: [] }, ctx);
                if (keyResult instanceof Promise) {
                    throw new Error("Async schemas not supported in object keys currently");
                }
                // Numeric string fallback: if key is a numeric string and failed, retry with Number(key). This handles z.number(), z.literal([1, 2, 3]), and unions containing numeric literals
                const checkNumericKey = typeof key === "string" && number.test(key) && keyResult.issues.length;
                if (checkNumericKey) {
                    const retryResult = def.keyType._zod.run({ value: Number(key), issues: [] }, ctx);
                    if (retryResult instanceof Promise) {
                        throw new Error("Async schemas not supported in object keys currently");
                    }
                    if (retryResult.issues.length === 0) {
                        keyResult = retryResult;
                    }
                }
                if (keyResult.issues.length) {
                    if (def.mode === "loose") {
                        // Pass through unchanged
                        payload.value[key] = input[key];
                    }
                    else if (values) {
                        unrecognized = unrecognized ?? [];
                        unrecognized.push(key);
                    }
                    else {
                        // Default "strict" behavior: error on invalid key
                        payload.issues.push({
                            code: "invalid_key",
                            origin: "record",
                            issues: keyResult.issues.map((iss) => finalizeIssue(iss, ctx, config())),
                            input: key,
                            path: [key],
                            inst,
                        });
                    }
                    continue;
                }
                // the guard above tests the raw input key, but the key schema can normalize an ordinary key into __proto__; re-check the key we actually write under
                const outKey = keyResult.value;
                if (outKey === "__proto__")
                    continue;
                const result = def.valueType._zod.run({ value: input[key], issues: [] }, ctx);
                if (result instanceof Promise) {
                    proms.push(result.then((result) => {
                        if (result.issues.length) {
                            payload.issues.push(...prefixIssues(key, result.issues));
                        }
                        payload.value[outKey] = result.value;
                    }));
                }
                else {
                    if (result.issues.length) {
                        payload.issues.push(...prefixIssues(key, result.issues));
                    }
                    payload.value[outKey] = result.value;
                }
            }
            if (unrecognized && unrecognized.length > 0) {
                payload.issues.push({
                    code: "unrecognized_keys",
                    input,
                    inst,
                    keys: unrecognized,
                    continue: true,
                });
            }
        }
        if (proms.length) {
            return Promise.all(proms).then(() => payload);
        }
        return payload;
    };
});
const $ZodMap = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodMap", (inst, def) => {
    $ZodType.init(inst, def);
    const memo = core.globalConfig.memoizer;
    memo?.attach(inst);
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        if (!(input instanceof Map)) {
            payload.issues.push({
                expected: "map",
                code: "invalid_type",
                input,
                inst,
            });
            return payload;
        }
        const proms = [];
        payload.value = memo ? memo.alloc(inst, payload, new Map(), ctx) : new Map();
        const abortEarly = ctx?.abortEarly;
        let seen = payload.issues.length;
        for (const [key, value] of input) {
            if (abortEarly && payload.issues.length !== seen) {
                if (util.aborted(payload, seen))
                    break;
                seen = payload.issues.length;
            }
            const keyResult = def.keyType._zod.run({ value: key, issues: [] }, ctx);
            const valueResult = def.valueType._zod.run({ value: value, issues: [] }, ctx);
            if (keyResult instanceof Promise || valueResult instanceof Promise) {
                proms.push(Promise.all([keyResult, valueResult]).then(([keyResult, valueResult]) => {
                    handleMapResult(keyResult, valueResult, payload, key, input, inst, ctx);
                }));
            }
            else {
                handleMapResult(keyResult, valueResult, payload, key, input, inst, ctx);
            }
        }
        if (proms.length)
            return Promise.all(proms).then(() => payload);
        return payload;
    };
    capSize(inst, mapSize);
})));
function handleMapResult(keyResult, valueResult, final, key, input, inst, ctx) {
    if (keyResult.issues.length) {
        if (util.propertyKeyTypes.has(typeof key)) {
            final.issues.push(...util.prefixIssues(key, keyResult.issues));
        }
        else {
            final.issues.push({
                code: "invalid_key",
                origin: "map",
                input,
                inst,
                issues: keyResult.issues.map((iss) => util.finalizeIssue(iss, ctx, core.config())),
            });
        }
    }
    if (valueResult.issues.length) {
        if (util.propertyKeyTypes.has(typeof key)) {
            final.issues.push(...util.prefixIssues(key, valueResult.issues));
        }
        else {
            final.issues.push({
                origin: "map",
                code: "invalid_element",
                input,
                inst,
                key: key,
                issues: valueResult.issues.map((iss) => util.finalizeIssue(iss, ctx, core.config())),
            });
        }
    }
    final.value.set(keyResult.value, valueResult.value);
}
const $ZodSet = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodSet", (inst, def) => {
    $ZodType.init(inst, def);
    const memo = core.globalConfig.memoizer;
    memo?.attach(inst);
    inst._zod.parse = (payload, ctx) => {
        const input = payload.value;
        if (!(input instanceof Set)) {
            payload.issues.push({
                input,
                inst,
                expected: "set",
                code: "invalid_type",
            });
            return payload;
        }
        const proms = [];
        payload.value = memo ? memo.alloc(inst, payload, new Set(), ctx) : new Set();
        const abortEarly = ctx?.abortEarly;
        let seen = payload.issues.length;
        for (const item of input) {
            if (abortEarly && payload.issues.length !== seen) {
                if (util.aborted(payload, seen))
                    break;
                seen = payload.issues.length;
            }
            const result = def.valueType._zod.run({ value: item, issues: [] }, ctx);
            if (result instanceof Promise) {
                proms.push(result.then((result) => handleSetResult(result, payload)));
            }
            else
                handleSetResult(result, payload);
        }
        if (proms.length)
            return Promise.all(proms).then(() => payload);
        return payload;
    };
    capSize(inst, setSize);
})));
function handleSetResult(result, final) {
    if (result.issues.length) {
        final.issues.push(...result.issues);
    }
    final.value.add(result.value);
}
const $ZodEnum = /*@__PURE__*/ $constructor("$ZodEnum", (inst, def) => {
    $ZodType.init(inst, def);
    const values = getEnumValues(def.entries);
    const valuesSet = new Set(values);
    inst._zod.values = valuesSet;
    defineLazyInternal(inst, "pattern", (zod) => {
        const patternValues = getEnumValues(zod.def.entries).filter((k) => propertyKeyTypes.has(typeof k));
        // unmatchable fallback, RE2-safe: an empty alternation would compile to /^()$/, which matches ""
        return new RegExp(patternValues.length ? `^(${patternValues.map((o) => escapeRegex(o.toString())).join("|")})$` : "^[^\\s\\S]$");
    });
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        if (valuesSet.has(input)) {
            return payload;
        }
        payload.issues.push({
            code: "invalid_value",
            values,
            input,
            inst,
        });
        return payload;
    };
});
const $ZodLiteral = /*@__PURE__*/ $constructor("$ZodLiteral", (inst, def) => {
    $ZodType.init(inst, def);
    const values = new Set(def.values);
    inst._zod.values = values;
    defineLazyInternal(inst, "pattern", (zod) => {
        const vals = zod.def.values;
        // unmatchable fallback, RE2-safe: an empty alternation would compile to /^()$/, which matches ""
        return new RegExp(vals.length
            ? `^(${vals
                .map((o) => typeof o === "string" ? escapeRegex(o) : o ? escapeRegex(o.toString()) : String(o))
                .join("|")})$`
            : "^[^\\s\\S]$");
    });
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        if (values.has(input)) {
            return payload;
        }
        payload.issues.push({
            code: "invalid_value",
            values: def.values,
            input,
            inst,
        });
        return payload;
    };
});
const $ZodFile = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodFile", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _ctx) => {
        const input = payload.value;
        // @ts-ignore
        if (input instanceof File)
            return payload;
        payload.issues.push({
            expected: "file",
            code: "invalid_type",
            input,
            inst,
        });
        return payload;
    };
})));
const $ZodTransform = /*@__PURE__*/ $constructor("$ZodTransform", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.optin = "optional";
    globalConfig.memoizer?.guard(inst);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            throw new $ZodEncodeError(inst.constructor.name);
        }
        const _out = def.transform(payload.value, payload);
        if (ctx.async) {
            const output = _out instanceof Promise ? _out : Promise.resolve(_out);
            return output.then((output) => {
                payload.value = output;
                return payload;
            });
        }
        if (_out instanceof Promise) {
            throw new $ZodAsyncError();
        }
        payload.value = _out;
        return payload;
    };
});
function handleOptionalResult(payload, result) {
    // A substituting schema that still failed has no usable answer; yield undefined. Its issues are simply dropped: it ran on a payload of its own, so there is no shared array to truncate and nothing of the caller's to lose with it.
    payload.value = result.issues.length ? undefined : result.value;
    return payload;
}
const $ZodOptional = /*@__PURE__*/ $constructor("$ZodOptional", (inst, def) => {
    $ZodType.init(inst, def);
    // .optional() propagates absence rather than substituting for it, so a defaulted inner keeps its rung.
    defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin === "defaulted" ? "defaulted" : "optional");
    inst._zod.optout = "optional";
    defineLazyInternal(inst, "values", (zod) => {
        const values = zod.def.innerType._zod.values;
        return values ? new Set([...values, undefined]) : undefined;
    });
    defineLazyInternal(inst, "pattern", (zod) => {
        const pattern = zod.def.innerType._zod.pattern;
        return pattern ? new RegExp(`^(${cleanRegex(pattern.source)})?$`) : undefined;
    });
    inst._zod.parse = (payload, ctx) => {
        if (payload.value === undefined) {
            // Only the top rung substitutes a value for absence; everything else leaves it intact, which is what .optional() means.
            if (def.innerType._zod.optin !== "defaulted")
                return payload;
            // Its own payload, for the same reason $ZodCatch gets one: a pipe forwards an unrecognized key through the caller's issues array, and this must not read that as the substituting schema failing and drop it.
            const result = def.innerType._zod.run({ value: payload.value, issues: [] }, ctx);
            if (result instanceof Promise)
                return result.then((result) => handleOptionalResult(payload, result));
            return handleOptionalResult(payload, result);
        }
        return def.innerType._zod.run(payload, ctx);
    };
});
const $ZodExactOptional = /*@__PURE__*/ $constructor("$ZodExactOptional", (inst, def) => {
    // Call parent init - inherits optin/optout = "optional"
    $ZodOptional.init(inst, def);
    // Override values/pattern to NOT add undefined
    defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
    defineLazyInternal(inst, "pattern", (zod) => zod.def.innerType._zod.pattern);
    // Override parse to just delegate (no undefined handling)
    inst._zod.parse = (payload, ctx) => {
        return def.innerType._zod.run(payload, ctx);
    };
});
const $ZodNullable = /*@__PURE__*/ $constructor("$ZodNullable", (inst, def) => {
    $ZodType.init(inst, def);
    defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin);
    defineLazyInternal(inst, "optout", (zod) => zod.def.innerType._zod.optout);
    defineLazyInternal(inst, "pattern", (zod) => {
        const pattern = zod.def.innerType._zod.pattern;
        return pattern ? new RegExp(`^(${cleanRegex(pattern.source)}|null)$`) : undefined;
    });
    defineLazyInternal(inst, "values", (zod) => {
        return zod.def.innerType._zod.values ? new Set([...zod.def.innerType._zod.values, null]) : undefined;
    });
    inst._zod.parse = (payload, ctx) => {
        // Forward direction (decode): allow null to pass through
        if (payload.value === null)
            return payload;
        return def.innerType._zod.run(payload, ctx);
    };
});
const $ZodDefault = /*@__PURE__*/ $constructor("$ZodDefault", (inst, def) => {
    $ZodType.init(inst, def);
    // inst._zod.qin = "true";
    inst._zod.optin = "defaulted";
    defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            return def.innerType._zod.run(payload, ctx);
        }
        // Forward direction (decode): apply defaults for undefined input
        if (payload.value === undefined) {
            payload.value = def.defaultValue;
            /**
             * $ZodDefault returns the default value immediately in forward direction.
             * It doesn't pass the default value into the validator ("prefault"). There's no reason to pass the default value through validation. The validity of the default is enforced by TypeScript statically. Otherwise, it's the responsibility of the user to ensure the default is valid. In the case of pipes with divergent in/out types, you can specify the default on the `in` schema of your ZodPipe to set a "prefault" for the pipe.   */
            return payload;
        }
        // Forward direction: continue with default handling
        const result = def.innerType._zod.run(payload, ctx);
        if (result instanceof Promise) {
            return result.then((result) => handleDefaultResult(result, def));
        }
        return handleDefaultResult(result, def);
    };
});
function handleDefaultResult(payload, def) {
    if (payload.value === undefined) {
        payload.value = def.defaultValue;
    }
    return payload;
}
const $ZodPrefault = /*@__PURE__*/ $constructor("$ZodPrefault", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.optin = "defaulted";
    defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            return def.innerType._zod.run(payload, ctx);
        }
        // Forward direction (decode): apply prefault for undefined input
        if (payload.value === undefined) {
            payload.value = def.defaultValue;
        }
        return def.innerType._zod.run(payload, ctx);
    };
});
const $ZodNonOptional = /*@__PURE__*/ $constructor("$ZodNonOptional", (inst, def) => {
    $ZodType.init(inst, def);
    defineLazyInternal(inst, "values", (zod) => {
        const v = zod.def.innerType._zod.values;
        return v ? new Set([...v].filter((x) => x !== undefined)) : undefined;
    });
    inst._zod.parse = (payload, ctx) => {
        const result = def.innerType._zod.run(payload, ctx);
        if (result instanceof Promise) {
            return result.then((result) => handleNonOptionalResult(result, inst));
        }
        return handleNonOptionalResult(result, inst);
    };
});
function handleNonOptionalResult(payload, inst) {
    if (!payload.issues.length && payload.value === undefined) {
        payload.issues.push({
            code: "invalid_type",
            expected: "nonoptional",
            input: payload.value,
            inst,
        });
    }
    return payload;
}
const $ZodSuccess = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodSuccess", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            throw new core.$ZodEncodeError("ZodSuccess");
        }
        const result = def.innerType._zod.run(payload, ctx);
        if (result instanceof Promise) {
            return result.then((result) => {
                payload.value = result.issues.length === 0;
                return payload;
            });
        }
        payload.value = result.issues.length === 0;
        return payload;
    };
})));
function handleCatchResult(payload, result, def, ctx) {
    if (!result.issues.length) {
        payload.value = result.value;
        // The value carries up, so the flag describing it has to carry with it: a back-edge into a node still being parsed must not be frozen by an enclosing readonly, and its checks belong to the node itself. Guarded so the ordinary case adds no own property.
        if (result.memo)
            payload.memo = true;
        return payload;
    }
    // Spread the inner's own payload, not ours: `value` has to stay the input the catch was handed, and the inner ran on a payload of its own so its issues are already private to this call.
    payload.value = def.catchValue({
        ...result,
        value: payload.value,
        error: {
            issues: result.issues.map((iss) => finalizeIssue(iss, ctx, config())),
        },
        input: payload.value,
    });
    return payload;
}
const $ZodCatch = /*@__PURE__*/ $constructor("$ZodCatch", (inst, def) => {
    $ZodType.init(inst, def);
    defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin === "defaulted" ? "defaulted" : "optional");
    defineLazyInternal(inst, "optout", (zod) => zod.def.innerType._zod.optout);
    defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            return def.innerType._zod.run(payload, ctx);
        }
        // Forward direction (decode): apply catch logic
        const result = def.innerType._zod.run({ value: payload.value, issues: [] }, ctx);
        if (result instanceof Promise) {
            return result.then((result) => handleCatchResult(payload, result, def, ctx));
        }
        return handleCatchResult(payload, result, def, ctx);
    };
});
const $ZodNaN = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodNaN", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _ctx) => {
        if (typeof payload.value !== "number" || !Number.isNaN(payload.value)) {
            payload.issues.push({
                input: payload.value,
                inst,
                expected: "nan",
                code: "invalid_type",
            });
            return payload;
        }
        return payload;
    };
})));
const $ZodPipe = /*@__PURE__*/ $constructor("$ZodPipe", (inst, def) => {
    $ZodType.init(inst, def);
    defineLazyInternal(inst, "values", (zod) => zod.def.in._zod.values);
    defineLazyInternal(inst, "optin", (zod) => zod.def.in._zod.optin);
    defineLazyInternal(inst, "optout", (zod) => zod.def.out._zod.optout);
    defineLazyInternal(inst, "propValues", (zod) => zod.def.in._zod.propValues);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            const right = def.out._zod.run(payload, ctx);
            if (right instanceof Promise) {
                return right.then((right) => handlePipeResult(right, def.in, ctx));
            }
            return handlePipeResult(right, def.in, ctx);
        }
        const left = def.in._zod.run(payload, ctx);
        if (left instanceof Promise) {
            return left.then((left) => handlePipeResult(left, def.out, ctx));
        }
        return handlePipeResult(left, def.out, ctx);
    };
});
function handlePipeResult(left, next, ctx) {
    // Any issue stops the pipe, so a failing refinement never feeds its transform. An unrecognized key is the exception: it describes the input's extra properties, not the value being piped, and an enclosing intersection may yet reconcile it.
    if (left.issues.some((iss) => iss.code !== "unrecognized_keys")) {
        // prevent further checks
        left.aborted = true;
        return left;
    }
    return next._zod.run({ value: left.value, issues: left.issues }, ctx);
}
const $ZodCodec = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodCodec", (inst, def) => {
    $ZodType.init(inst, def);
    util.defineLazyInternal(inst, "values", (zod) => zod.def.in._zod.values);
    util.defineLazyInternal(inst, "optin", (zod) => zod.def.in._zod.optin);
    util.defineLazyInternal(inst, "optout", (zod) => zod.def.out._zod.optout);
    util.defineLazyInternal(inst, "propValues", (zod) => zod.def.in._zod.propValues);
    inst._zod.parse = (payload, ctx) => {
        const direction = ctx.direction || "forward";
        if (direction === "forward") {
            const left = def.in._zod.run(payload, ctx);
            if (left instanceof Promise) {
                return left.then((left) => handleCodecAResult(left, def, ctx));
            }
            return handleCodecAResult(left, def, ctx);
        }
        else {
            const right = def.out._zod.run(payload, ctx);
            if (right instanceof Promise) {
                return right.then((right) => handleCodecAResult(right, def, ctx));
            }
            return handleCodecAResult(right, def, ctx);
        }
    };
})));
function handleCodecAResult(result, def, ctx) {
    if (result.issues.length) {
        // prevent further checks
        result.aborted = true;
        return result;
    }
    const direction = ctx.direction || "forward";
    if (direction === "forward") {
        const transformed = def.transform(result.value, result);
        if (transformed instanceof Promise) {
            return transformed.then((value) => handleCodecTxResult(result, value, def.out, ctx));
        }
        return handleCodecTxResult(result, transformed, def.out, ctx);
    }
    else {
        const transformed = def.reverseTransform(result.value, result);
        if (transformed instanceof Promise) {
            return transformed.then((value) => handleCodecTxResult(result, value, def.in, ctx));
        }
        return handleCodecTxResult(result, transformed, def.in, ctx);
    }
}
function handleCodecTxResult(left, value, nextSchema, ctx) {
    // Check if transform added any issues
    if (left.issues.length) {
        left.aborted = true;
        return left;
    }
    return nextSchema._zod.run({ value, issues: left.issues }, ctx);
}
const $ZodPreprocess = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodPreprocess", (inst, def) => {
    $ZodPipe.init(inst, def);
})));
const $ZodReadonly = /*@__PURE__*/ $constructor("$ZodReadonly", (inst, def) => {
    $ZodType.init(inst, def);
    defineLazyInternal(inst, "propValues", (zod) => zod.def.innerType._zod.propValues);
    defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
    defineLazyInternal(inst, "optin", (zod) => zod.def.innerType?._zod?.optin);
    defineLazyInternal(inst, "optout", (zod) => zod.def.innerType?._zod?.optout);
    inst._zod.parse = (payload, ctx) => {
        if (ctx.direction === "backward") {
            return def.innerType._zod.run(payload, ctx);
        }
        const result = def.innerType._zod.run(payload, ctx);
        if (result instanceof Promise) {
            return result.then(handleReadonlyResult);
        }
        return handleReadonlyResult(result);
    };
});
function handleReadonlyResult(payload) {
    // A repeat visit hands back a node that is still being built; freezing it here would make the rest of its keys fail to assign.
    if (!payload.memo)
        payload.value = Object.freeze(payload.value);
    return payload;
}
// a leaf's pattern source with its own checks folded in: the last pattern-carrying check wins, else length bounds narrow the catch-all, else an integer format narrows the number form. the fold lives here instead of on `_zod.pattern` so a bundle without template literals never pays for it
function leafPattern(schema) {
    const def = schema._zod.def;
    let pattern = def.pattern;
    let isInt = !!def.format?.includes("int");
    let minimum;
    let maximum;
    for (const ch of def.checks ?? []) {
        const d = ch._zod.def;
        if (d.pattern)
            pattern = d.pattern;
        isInt || (isInt = !!d.format?.includes("int"));
        const lo = d.minimum ?? d.length;
        const hi = d.maximum ?? d.length;
        if (lo !== undefined && (minimum === undefined || lo > minimum))
            minimum = lo;
        if (hi !== undefined && (maximum === undefined || hi < maximum))
            maximum = hi;
    }
    if (pattern)
        return pattern.source;
    // an empty range matches nothing at runtime, and `{8,5}` is not a legal quantifier
    if (minimum !== undefined && maximum !== undefined && minimum > maximum)
        return "(?!)";
    if (minimum !== undefined || maximum !== undefined)
        return regexes.string({ minimum, maximum }).source;
    const own = schema._zod.pattern;
    return (isInt && own === regexes.number ? regexes.integer : own)?.source;
}
// a part's pattern source. a wrapper's pattern embeds its inner pattern's source verbatim, so the folded form is substituted in place without knowing the wrapper's own composition; a union's options are joined the way the union builds its own pattern
function partPattern(schema) {
    const def = schema._zod.def;
    const own = schema._zod.pattern?.source;
    // lazy resolves its inner on the internals, not the def
    const inner = def.innerType ?? schema._zod.innerType;
    if (inner) {
        const before = inner._zod.pattern?.source;
        const after = partPattern(inner);
        if (own && before && after && after !== before) {
            return own.replace(util.cleanRegex(before), () => util.cleanRegex(after));
        }
        return own;
    }
    if (def.options) {
        const sources = def.options.map(partPattern);
        if (sources.every(Boolean))
            return `^(${sources.map((s) => util.cleanRegex(s)).join("|")})$`;
    }
    return leafPattern(schema);
}
const $ZodTemplateLiteral = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodTemplateLiteral", (inst, def) => {
    $ZodType.init(inst, def);
    const regexParts = [];
    for (const part of def.parts) {
        if (typeof part === "object" && part !== null) {
            // is Zod schema
            const source = partPattern(part);
            if (!source) {
                throw new Error(`Invalid template literal part, no pattern found: ${[...part._zod.traits].shift()}`);
            }
            regexParts.push(util.cleanRegex(source));
        }
        else if (part === null || util.primitiveTypes.has(typeof part)) {
            regexParts.push(util.escapeRegex(`${part}`));
        }
        else {
            throw new Error(`Invalid template literal part: ${part}`);
        }
    }
    inst._zod.pattern = new RegExp(`^${regexParts.join("")}$`);
    inst._zod.parse = (payload, _ctx) => {
        if (typeof payload.value !== "string") {
            payload.issues.push({
                input: payload.value,
                inst,
                expected: "string",
                code: "invalid_type",
            });
            return payload;
        }
        inst._zod.pattern.lastIndex = 0;
        if (!inst._zod.pattern.test(payload.value)) {
            payload.issues.push({
                input: payload.value,
                inst,
                code: "invalid_format",
                format: def.format ?? "template_literal",
                pattern: inst._zod.pattern.source,
            });
            return payload;
        }
        return payload;
    };
})));
const $ZodFunction = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodFunction", (inst, def) => {
    $ZodType.init(inst, def);
    // Defined, not assigned: the classic prototype exposes `_def` as a getter with no setter.
    Object.defineProperty(inst, "_def", { value: def });
    inst._zod.def = def;
    inst.implement = (func) => {
        if (typeof func !== "function") {
            throw new Error("implement() must be called with a function");
        }
        // Defined inline so the closure stays anonymous: binding it to a `const` first names it, which costs 256 bytes per implemented function.
        return Object.defineProperty(function (...args) {
            const parsedArgs = inst._def.input ? parse(inst._def.input, args) : args;
            const result = Reflect.apply(func, this, parsedArgs);
            if (inst._def.output) {
                return parse(inst._def.output, result);
            }
            return result;
        }, "_zod", { value: inst._zod, enumerable: false });
    };
    inst.implementAsync = (func) => {
        if (typeof func !== "function") {
            throw new Error("implementAsync() must be called with a function");
        }
        return Object.defineProperty(async function (...args) {
            const parsedArgs = inst._def.input ? await parseAsync(inst._def.input, args) : args;
            const result = await Reflect.apply(func, this, parsedArgs);
            if (inst._def.output) {
                return await parseAsync(inst._def.output, result);
            }
            return result;
        }, "_zod", { value: inst._zod, enumerable: false });
    };
    inst._zod.parse = (payload, _ctx) => {
        if (typeof payload.value !== "function") {
            payload.issues.push({
                code: "invalid_type",
                expected: "function",
                input: payload.value,
                inst,
            });
            return payload;
        }
        // Check if output is a promise type to determine if we should use async implementation
        const hasPromiseOutput = inst._def.output && inst._def.output._zod.def.type === "promise";
        if (hasPromiseOutput) {
            payload.value = inst.implementAsync(payload.value);
        }
        else {
            payload.value = inst.implement(payload.value);
        }
        return payload;
    };
    inst.input = (...args) => {
        const F = inst.constructor;
        if (Array.isArray(args[0])) {
            return new F({
                type: "function",
                input: new $ZodTuple({
                    type: "tuple",
                    items: args[0],
                    rest: args[1],
                }),
                output: inst._def.output,
            });
        }
        return new F({
            type: "function",
            input: args[0],
            output: inst._def.output,
        });
    };
    inst.output = (output) => {
        const F = inst.constructor;
        return new F({
            type: "function",
            input: inst._def.input,
            output,
        });
    };
    return inst;
})));
const $ZodPromise = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodPromise", (inst, def) => {
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, ctx) => {
        return Promise.resolve(payload.value).then((inner) => def.innerType._zod.run({ value: inner, issues: [] }, ctx));
    };
})));
const $ZodLazy = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("$ZodLazy", (inst, def) => {
    $ZodType.init(inst, def);
    // Cache the resolved inner type on the shared `def` so all clones of this lazy (e.g. via `.describe()`/`.meta()`) share the same inner instance, preserving identity for cycle detection on recursive schemas.
    util.defineLazy(inst._zod, "innerType", () => {
        const d = def;
        if (!d._cachedInner)
            d._cachedInner = def.getter();
        return d._cachedInner;
    });
    util.defineLazyInternal(inst, "pattern", (zod) => zod.innerType?._zod?.pattern);
    util.defineLazyInternal(inst, "propValues", (zod) => zod.innerType?._zod?.propValues);
    util.defineLazyInternal(inst, "optin", (zod) => zod.innerType?._zod?.optin ?? undefined);
    util.defineLazyInternal(inst, "optout", (zod) => zod.innerType?._zod?.optout ?? undefined);
    inst._zod.parse = (payload, ctx) => {
        const inner = inst._zod.innerType;
        return inner._zod.run(payload, ctx);
    };
})));
const $ZodCustom = /*@__PURE__*/ $constructor("$ZodCustom", (inst, def) => {
    $ZodCheck.init(inst, def);
    $ZodType.init(inst, def);
    inst._zod.parse = (payload, _) => {
        return payload;
    };
    inst._zod.check = (payload) => {
        const input = payload.value;
        const r = def.fn(input);
        if (r instanceof Promise) {
            return r.then((r) => handleRefineResult(r, payload, input, inst));
        }
        handleRefineResult(r, payload, input, inst);
        return;
    };
});
function handleRefineResult(result, payload, input, inst) {
    if (!result) {
        const _iss = {
            code: "custom",
            input,
            inst, // incorporates params.error into issue reporting
            path: [...(inst._zod.def.path ?? [])], // incorporates params.error into issue reporting
            continue: !inst._zod.def.abort,
            // params: inst._zod.def.params,
        };
        if (inst._zod.def.params)
            _iss.params = inst._zod.def.params;
        payload.issues.push(util_issue(_iss));
    }
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/registries.js
var registries_a;
const $output = /*@__PURE__*/ (/* unused pure expression or super */ null && (Symbol("ZodOutput")));
const $input = /*@__PURE__*/ (/* unused pure expression or super */ null && (Symbol("ZodInput")));
class $ZodRegistry {
    constructor() {
        this._map = new WeakMap();
        this._idmap = new Map();
    }
    add(schema, ..._meta) {
        const meta = _meta[0];
        this._map.set(schema, meta);
        if (meta && typeof meta === "object" && "id" in meta) {
            this._idmap.set(meta.id, schema);
        }
        return this;
    }
    clear() {
        this._map = new WeakMap();
        this._idmap = new Map();
        return this;
    }
    remove(schema) {
        const meta = this._map.get(schema);
        if (meta && typeof meta === "object" && "id" in meta) {
            this._idmap.delete(meta.id);
        }
        this._map.delete(schema);
        return this;
    }
    get(schema) {
        // return this._map.get(schema) as any;
        // inherit metadata
        const p = schema._zod.parent;
        if (p) {
            const pm = { ...(this.get(p) ?? {}) };
            delete pm.id; // do not inherit id
            const f = { ...pm, ...this._map.get(schema) };
            return Object.keys(f).length ? f : undefined;
        }
        return this._map.get(schema);
    }
    has(schema) {
        return this._map.has(schema);
    }
}
// registries
function registry() {
    return new $ZodRegistry();
}
(registries_a = globalThis).__zod_globalRegistry ?? (registries_a.__zod_globalRegistry = registry());
const globalRegistry = globalThis.__zod_globalRegistry;

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/api.js




function snapshotChecks(def) {
    if (def.checks)
        def.checks = [...def.checks];
    return def;
}
// @__NO_SIDE_EFFECTS__
function _string(Class, params) {
    return new Class(snapshotChecks({ type: "string", ...normalizeParams(params) }));
}
// @__NO_SIDE_EFFECTS__
function _coercedString(Class, params) {
    return new Class(snapshotChecks({ type: "string", coerce: true, ...util.normalizeParams(params) }));
}
// @__NO_SIDE_EFFECTS__
function _email(Class, params) {
    return new Class({
        type: "string",
        format: "email",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _guid(Class, params) {
    return new Class({
        type: "string",
        format: "guid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uuid(Class, params) {
    return new Class({
        type: "string",
        format: "uuid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uuidv4(Class, params) {
    return new Class({
        type: "string",
        format: "uuid",
        check: "string_format",
        abort: false,
        version: "v4",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uuidv6(Class, params) {
    return new Class({
        type: "string",
        format: "uuid",
        check: "string_format",
        abort: false,
        version: "v6",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uuidv7(Class, params) {
    return new Class({
        type: "string",
        format: "uuid",
        check: "string_format",
        abort: false,
        version: "v7",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _url(Class, params) {
    return new Class({
        type: "string",
        format: "url",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function api_emoji(Class, params) {
    return new Class({
        type: "string",
        format: "emoji",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _nanoid(Class, params) {
    return new Class({
        type: "string",
        format: "nanoid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
/**
 * @deprecated CUID v1 is deprecated by its authors due to information leakage
 * (timestamps embedded in the id). Use {@link _cuid2} instead.
 * See https://github.com/paralleldrive/cuid.
 */
// @__NO_SIDE_EFFECTS__
function _cuid(Class, params) {
    return new Class({
        type: "string",
        format: "cuid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _cuid2(Class, params) {
    return new Class({
        type: "string",
        format: "cuid2",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _ulid(Class, params) {
    return new Class({
        type: "string",
        format: "ulid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _xid(Class, params) {
    return new Class({
        type: "string",
        format: "xid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _ksuid(Class, params) {
    return new Class({
        type: "string",
        format: "ksuid",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _ipv4(Class, params) {
    return new Class({
        type: "string",
        format: "ipv4",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _ipv6(Class, params) {
    return new Class({
        type: "string",
        format: "ipv6",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _mac(Class, params) {
    return new Class({
        type: "string",
        format: "mac",
        check: "string_format",
        abort: false,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _cidrv4(Class, params) {
    return new Class({
        type: "string",
        format: "cidrv4",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _cidrv6(Class, params) {
    return new Class({
        type: "string",
        format: "cidrv6",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _base64(Class, params) {
    return new Class({
        type: "string",
        format: "base64",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _base64url(Class, params) {
    return new Class({
        type: "string",
        format: "base64url",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _e164(Class, params) {
    return new Class({
        type: "string",
        format: "e164",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _creditCard(Class, params) {
    return new Class({
        type: "string",
        format: "credit_card",
        check: "string_format",
        abort: false,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _iban(Class, params) {
    return new Class({
        type: "string",
        format: "iban",
        check: "string_format",
        abort: false,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _jwt(Class, params) {
    return new Class({
        type: "string",
        format: "jwt",
        check: "string_format",
        abort: false,
        ...normalizeParams(params),
    });
}
const TimePrecision = {
    Any: null,
    Minute: -1,
    Second: 0,
    Millisecond: 3,
    Microsecond: 6,
};
// @__NO_SIDE_EFFECTS__
function _isoDateTime(Class, params) {
    return new Class({
        type: "string",
        format: "datetime",
        check: "string_format",
        offset: false,
        local: false,
        precision: null,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _isoDate(Class, params) {
    return new Class({
        type: "string",
        format: "date",
        check: "string_format",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _isoTime(Class, params) {
    return new Class({
        type: "string",
        format: "time",
        check: "string_format",
        precision: null,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _isoDuration(Class, params) {
    return new Class({
        type: "string",
        format: "duration",
        check: "string_format",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _number(Class, params) {
    return new Class(snapshotChecks({ type: "number", checks: [], ...normalizeParams(params) }));
}
// @__NO_SIDE_EFFECTS__
function _coercedNumber(Class, params) {
    return new Class(snapshotChecks({ type: "number", coerce: true, checks: [], ...util.normalizeParams(params) }));
}
// @__NO_SIDE_EFFECTS__
function _int(Class, params) {
    return new Class({
        type: "number",
        check: "number_format",
        abort: false,
        format: "safeint",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _float32(Class, params) {
    return new Class({
        type: "number",
        check: "number_format",
        abort: false,
        format: "float32",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _float64(Class, params) {
    return new Class({
        type: "number",
        check: "number_format",
        abort: false,
        format: "float64",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _int32(Class, params) {
    return new Class({
        type: "number",
        check: "number_format",
        abort: false,
        format: "int32",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uint32(Class, params) {
    return new Class({
        type: "number",
        check: "number_format",
        abort: false,
        format: "uint32",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _boolean(Class, params) {
    return new Class({
        type: "boolean",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _coercedBoolean(Class, params) {
    return new Class({
        type: "boolean",
        coerce: true,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _bigint(Class, params) {
    return new Class({
        type: "bigint",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _coercedBigint(Class, params) {
    return new Class({
        type: "bigint",
        coerce: true,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _int64(Class, params) {
    return new Class({
        type: "bigint",
        check: "bigint_format",
        abort: false,
        format: "int64",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uint64(Class, params) {
    return new Class({
        type: "bigint",
        check: "bigint_format",
        abort: false,
        format: "uint64",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _symbol(Class, params) {
    return new Class({
        type: "symbol",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function api_undefined(Class, params) {
    return new Class({
        type: "undefined",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function api_null(Class, params) {
    return new Class({
        type: "null",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _any(Class) {
    return new Class({
        type: "any",
    });
}
// @__NO_SIDE_EFFECTS__
function _unknown(Class) {
    return new Class({
        type: "unknown",
    });
}
// @__NO_SIDE_EFFECTS__
function _never(Class, params) {
    return new Class({
        type: "never",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _void(Class, params) {
    return new Class({
        type: "void",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _date(Class, params) {
    return new Class({
        type: "date",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _coercedDate(Class, params) {
    return new Class({
        type: "date",
        coerce: true,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _nan(Class, params) {
    return new Class({
        type: "nan",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _lt(value, params) {
    return new $ZodCheckLessThan({
        check: "less_than",
        ...normalizeParams(params),
        value,
        inclusive: false,
    });
}
// @__NO_SIDE_EFFECTS__
function _lte(value, params) {
    return new $ZodCheckLessThan({
        check: "less_than",
        ...normalizeParams(params),
        value,
        inclusive: true,
    });
}

// @__NO_SIDE_EFFECTS__
function _gt(value, params) {
    return new $ZodCheckGreaterThan({
        check: "greater_than",
        ...normalizeParams(params),
        value,
        inclusive: false,
    });
}
// @__NO_SIDE_EFFECTS__
function _gte(value, params) {
    return new $ZodCheckGreaterThan({
        check: "greater_than",
        ...normalizeParams(params),
        value,
        inclusive: true,
    });
}

// @__NO_SIDE_EFFECTS__
function _positive(params) {
    return _gt(0, params);
}
// negative
// @__NO_SIDE_EFFECTS__
function _negative(params) {
    return _lt(0, params);
}
// nonpositive
// @__NO_SIDE_EFFECTS__
function _nonpositive(params) {
    return _lte(0, params);
}
// nonnegative
// @__NO_SIDE_EFFECTS__
function _nonnegative(params) {
    return _gte(0, params);
}
// @__NO_SIDE_EFFECTS__
function _multipleOf(value, params) {
    return new $ZodCheckMultipleOf({
        check: "multiple_of",
        ...normalizeParams(params),
        value,
    });
}
// @__NO_SIDE_EFFECTS__
function _maxSize(maximum, params) {
    return new checks.$ZodCheckMaxSize({
        check: "max_size",
        ...util.normalizeParams(params),
        maximum,
    });
}
// @__NO_SIDE_EFFECTS__
function _minSize(minimum, params) {
    return new checks.$ZodCheckMinSize({
        check: "min_size",
        ...util.normalizeParams(params),
        minimum,
    });
}
// @__NO_SIDE_EFFECTS__
function _size(size, params) {
    return new checks.$ZodCheckSizeEquals({
        check: "size_equals",
        ...util.normalizeParams(params),
        size,
    });
}
// @__NO_SIDE_EFFECTS__
function _maxLength(maximum, params) {
    const ch = new $ZodCheckMaxLength({
        check: "max_length",
        ...normalizeParams(params),
        maximum,
    });
    return ch;
}
// @__NO_SIDE_EFFECTS__
function _minLength(minimum, params) {
    return new $ZodCheckMinLength({
        check: "min_length",
        ...normalizeParams(params),
        minimum,
    });
}
// @__NO_SIDE_EFFECTS__
function _length(length, params) {
    return new $ZodCheckLengthEquals({
        check: "length_equals",
        ...normalizeParams(params),
        length,
    });
}
// @__NO_SIDE_EFFECTS__
function _regex(pattern, params) {
    return new $ZodCheckRegex({
        check: "string_format",
        format: "regex",
        ...normalizeParams(params),
        pattern,
    });
}
// @__NO_SIDE_EFFECTS__
function _lowercase(params) {
    return new $ZodCheckLowerCase({
        check: "string_format",
        format: "lowercase",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _uppercase(params) {
    return new $ZodCheckUpperCase({
        check: "string_format",
        format: "uppercase",
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _includes(includes, params) {
    return new $ZodCheckIncludes({
        check: "string_format",
        format: "includes",
        ...normalizeParams(params),
        includes,
    });
}
// @__NO_SIDE_EFFECTS__
function _startsWith(prefix, params) {
    return new $ZodCheckStartsWith({
        check: "string_format",
        format: "starts_with",
        ...normalizeParams(params),
        prefix,
    });
}
// @__NO_SIDE_EFFECTS__
function _endsWith(suffix, params) {
    return new $ZodCheckEndsWith({
        check: "string_format",
        format: "ends_with",
        ...normalizeParams(params),
        suffix,
    });
}
// @__NO_SIDE_EFFECTS__
function _property(property, schema, params) {
    return new checks.$ZodCheckProperty({
        check: "property",
        property,
        schema,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _properties(shape, params) {
    return new $ZodCheckProperties({
        check: "properties",
        shape,
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _mime(types, params) {
    return new checks.$ZodCheckMimeType({
        check: "mime_type",
        mime: types,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _overwrite(tx) {
    return new $ZodCheckOverwrite({
        check: "overwrite",
        tx,
    });
}
// normalize
// @__NO_SIDE_EFFECTS__
function _normalize(form) {
    return _overwrite((input) => input.normalize(form));
}
// trim
// @__NO_SIDE_EFFECTS__
function _trim() {
    return _overwrite((input) => input.trim());
}
// toLowerCase
// @__NO_SIDE_EFFECTS__
function _toLowerCase() {
    return _overwrite((input) => input.toLowerCase());
}
// toUpperCase
// @__NO_SIDE_EFFECTS__
function _toUpperCase() {
    return _overwrite((input) => input.toUpperCase());
}
// slugify
// @__NO_SIDE_EFFECTS__
function _slugify() {
    return _overwrite((input) => slugify(input));
}
// @__NO_SIDE_EFFECTS__
function _array(Class, element, params) {
    return new Class({
        type: "array",
        element,
        // get element() {
        //   return element;
        // },
        ...normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _union(Class, options, params) {
    return new Class({
        type: "union",
        options,
        ...util.normalizeParams(params),
    });
}
function _xor(Class, options, params) {
    return new Class({
        type: "union",
        options,
        inclusive: false,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _discriminatedUnion(Class, discriminator, options, params) {
    return new Class({
        type: "union",
        options: options,
        discriminator,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _intersection(Class, left, right) {
    return new Class({
        type: "intersection",
        left,
        right,
    });
}
// export function _tuple(
//   Class: util.SchemaClass<schemas.$ZodTuple>,
//   items: [],
//   params?: string | $ZodTupleParams
// ): schemas.$ZodTuple<[], null>;
// @__NO_SIDE_EFFECTS__
function _tuple(Class, items, _paramsOrRest, _params) {
    const hasRest = _paramsOrRest instanceof schemas.$ZodType;
    const params = hasRest ? _params : _paramsOrRest;
    const rest = hasRest ? _paramsOrRest : null;
    return new Class({
        type: "tuple",
        items,
        rest,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _record(Class, keyType, valueType, params) {
    return new Class({
        type: "record",
        keyType,
        valueType,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _map(Class, keyType, valueType, params) {
    return new Class({
        type: "map",
        keyType,
        valueType,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _set(Class, valueType, params) {
    return new Class({
        type: "set",
        valueType,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _enum(Class, values, params) {
    const entries = Array.isArray(values) ? Object.fromEntries(values.map((v) => [v, v])) : values;
    // if (Array.isArray(values)) {
    //   for (const value of values) {
    //     entries[value] = value;
    //   }
    // } else {
    //   Object.assign(entries, values);
    // }
    // const entries: util.EnumLike = {};
    // for (const val of values) {
    //   entries[val] = val;
    // }
    return new Class({
        type: "enum",
        entries,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
/** @deprecated This API has been merged into `z.enum()`. Use `z.enum()` instead.
 *
 * ```ts
 * enum Colors { red, green, blue }
 * z.enum(Colors);
 * ```
 */
function _nativeEnum(Class, entries, params) {
    return new Class({
        type: "enum",
        entries,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _literal(Class, value, params) {
    return new Class({
        type: "literal",
        values: Array.isArray(value) ? value : [value],
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _file(Class, params) {
    return new Class({
        type: "file",
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _transform(Class, fn) {
    return new Class({
        type: "transform",
        transform: fn,
    });
}
// @__NO_SIDE_EFFECTS__
function _optional(Class, innerType) {
    return new Class({
        type: "optional",
        innerType,
    });
}
// @__NO_SIDE_EFFECTS__
function _nullable(Class, innerType) {
    return new Class({
        type: "nullable",
        innerType,
    });
}
// @__NO_SIDE_EFFECTS__
function _default(Class, innerType, defaultValue) {
    return new Class({
        type: "default",
        innerType,
        get defaultValue() {
            return typeof defaultValue === "function" ? defaultValue() : util.shallowClone(defaultValue);
        },
    });
}
// @__NO_SIDE_EFFECTS__
function _nonoptional(Class, innerType, params) {
    return new Class({
        type: "nonoptional",
        innerType,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _success(Class, innerType) {
    return new Class({
        type: "success",
        innerType,
    });
}
// @__NO_SIDE_EFFECTS__
function _catch(Class, innerType, catchValue) {
    return new Class({
        type: "catch",
        innerType,
        catchValue: (typeof catchValue === "function" ? catchValue : util.constantCatch(catchValue)),
    });
}
// @__NO_SIDE_EFFECTS__
function _pipe(Class, in_, out) {
    return new Class({
        type: "pipe",
        in: in_,
        out,
    });
}
// @__NO_SIDE_EFFECTS__
function _readonly(Class, innerType) {
    return new Class({
        type: "readonly",
        innerType,
    });
}
// @__NO_SIDE_EFFECTS__
function _templateLiteral(Class, parts, params) {
    return new Class({
        type: "template_literal",
        parts,
        ...util.normalizeParams(params),
    });
}
// @__NO_SIDE_EFFECTS__
function _lazy(Class, getter) {
    return new Class({
        type: "lazy",
        getter,
    });
}
// @__NO_SIDE_EFFECTS__
function _promise(Class, innerType) {
    return new Class({
        type: "promise",
        innerType,
    });
}
// @__NO_SIDE_EFFECTS__
function _custom(Class, fn, _params) {
    const norm = util.normalizeParams(_params);
    norm.abort ?? (norm.abort = true); // default to abort:false
    const schema = new Class({
        type: "custom",
        check: "custom",
        fn: fn,
        ...norm,
    });
    return schema;
}
// same as _custom but defaults to abort:false
// @__NO_SIDE_EFFECTS__
function _refine(Class, fn, _params) {
    const schema = new Class({
        type: "custom",
        check: "custom",
        fn: fn,
        ...normalizeParams(_params),
    });
    return schema;
}
// @__NO_SIDE_EFFECTS__
function _superRefine(fn, params) {
    const ch = _check((payload) => {
        payload.addIssue = (issue) => {
            if (typeof issue === "string") {
                payload.issues.push(util_issue(issue, payload.value, ch._zod.def));
            }
            else {
                // for Zod 3 backwards compatibility
                const _issue = issue;
                if (_issue.fatal)
                    _issue.continue = false;
                _issue.code ?? (_issue.code = "custom");
                if (!("input" in _issue))
                    _issue.input = payload.value;
                _issue.inst ?? (_issue.inst = ch);
                _issue.continue ?? (_issue.continue = !ch._zod.def.abort); // abort is always undefined, so this is always true...
                payload.issues.push(util_issue(_issue));
            }
        };
        return fn(payload.value, payload);
    }, params);
    return ch;
}
// @__NO_SIDE_EFFECTS__
function _check(fn, params) {
    const ch = new $ZodCheck({
        check: "custom",
        ...normalizeParams(params),
    });
    ch._zod.check = fn;
    return ch;
}
// @__NO_SIDE_EFFECTS__
function describe(description) {
    const ch = new $ZodCheck({ check: "describe" });
    ch._zod.onattach = [
        (inst) => {
            const existing = globalRegistry.get(inst) ?? {};
            globalRegistry.add(inst, { ...existing, description });
        },
    ];
    ch._zod.check = () => { }; // no-op check
    return ch;
}
// @__NO_SIDE_EFFECTS__
function meta(metadata) {
    const ch = new $ZodCheck({ check: "meta" });
    ch._zod.onattach = [
        (inst) => {
            const existing = globalRegistry.get(inst) ?? {};
            globalRegistry.add(inst, { ...existing, ...metadata });
        },
    ];
    ch._zod.check = () => { }; // no-op check
    return ch;
}
// @__NO_SIDE_EFFECTS__
function _stringbool(Classes, _params) {
    const params = util.normalizeParams(_params);
    let truthyArray = params.truthy ?? ["true", "1", "yes", "on", "y", "enabled"];
    let falsyArray = params.falsy ?? ["false", "0", "no", "off", "n", "disabled"];
    if (params.case !== "sensitive") {
        truthyArray = truthyArray.map((v) => (typeof v === "string" ? v.toLowerCase() : v));
        falsyArray = falsyArray.map((v) => (typeof v === "string" ? v.toLowerCase() : v));
    }
    const truthySet = new Set(truthyArray);
    const falsySet = new Set(falsyArray);
    const _Codec = Classes.Codec ?? schemas.$ZodCodec;
    const _Boolean = Classes.Boolean ?? schemas.$ZodBoolean;
    const _String = Classes.String ?? schemas.$ZodString;
    const stringSchema = new _String({ type: "string", error: params.error });
    const booleanSchema = new _Boolean({ type: "boolean", error: params.error });
    const codec = new _Codec({
        type: "pipe",
        in: stringSchema,
        out: booleanSchema,
        transform: ((input, payload) => {
            let data = input;
            if (params.case !== "sensitive")
                data = data.toLowerCase();
            if (truthySet.has(data)) {
                return true;
            }
            else if (falsySet.has(data)) {
                return false;
            }
            else {
                payload.issues.push({
                    code: "invalid_value",
                    expected: "stringbool",
                    values: [...truthySet, ...falsySet],
                    input: payload.value,
                    inst: codec,
                    continue: false,
                });
                return {};
            }
        }),
        reverseTransform: ((input, _payload) => {
            if (input === true) {
                return truthyArray[0] || "true";
            }
            else {
                return falsyArray[0] || "false";
            }
        }),
        error: params.error,
    });
    codec._zod.bag.truthy = truthyArray;
    codec._zod.bag.falsy = falsyArray;
    codec._zod.bag.case = params.case ?? "insensitive";
    return codec;
}
// @__NO_SIDE_EFFECTS__
function _stringFormat(Class, format, fnOrRegex, _params = {}) {
    const params = util.normalizeParams(_params);
    const def = {
        check: "string_format",
        type: "string",
        format,
        fn: typeof fnOrRegex === "function" ? fnOrRegex : (val) => fnOrRegex.test(val),
        ...params,
    };
    if (fnOrRegex instanceof RegExp) {
        def.pattern = fnOrRegex;
    }
    const inst = new Class(def);
    return inst;
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/to-json-schema.js


function assignProps(target, ...sources) {
    for (const source of sources) {
        for (const key of Reflect.ownKeys(source)) {
            if (Object.prototype.propertyIsEnumerable.call(source, key)) {
                util_assignProp(target, key, source[key]);
            }
        }
    }
    return target;
}
// function initializeContext<T extends schemas.$ZodType>(inputs: JSONSchemaGeneratorParams<T>): ToJSONSchemaContext<T> {
//   return {
//     processor: inputs.processor,
//     metadataRegistry: inputs.metadata ?? globalRegistry,
//     target: inputs.target ?? "draft-2020-12",
//     unrepresentable: inputs.unrepresentable ?? "throw",
//   };
// }
function to_json_schema_initializeContext(params) {
    // Normalize target: convert old non-hyphenated versions to hyphenated versions
    let target = params?.target ?? "draft-2020-12";
    if (target === "draft-4")
        target = "draft-04";
    if (target === "draft-7")
        target = "draft-07";
    return {
        processors: params.processors ?? {},
        metadataRegistry: params?.metadata ?? globalRegistry,
        target,
        unrepresentable: params?.unrepresentable ?? "throw",
        override: params?.override ?? (() => { }),
        io: params?.io ?? "output",
        counter: 0,
        seen: new Map(),
        sharedDefsExtractedFor: undefined,
        sharedEmitDoneFor: undefined,
        cycles: params?.cycles ?? "ref",
        reused: params?.reused ?? "inline",
        intersections: [],
        deferred: [],
        external: params?.external ?? undefined,
    };
}
/**
 * Applies the `unrepresentable` setting at a site that has no JSON Schema equivalent. Throws
 * `message` unless the setting (or the handler's return value) says otherwise. Returns `true` if a
 * custom JSON Schema was written into `json`, in which case the caller must not write its own.
 */
function handleUnrepresentable(schema, ctx, json, params, message) {
    const result = typeof ctx.unrepresentable === "function"
        ? ctx.unrepresentable({ zodSchema: schema, path: params.path, message })
        : ctx.unrepresentable;
    if (result === "any")
        return false;
    if (result === undefined || result === "throw")
        throw new Error(message);
    Object.assign(json, result);
    return true;
}
// never rename this back to `process`: bundler polyfills inject a top-level `const process` that a lexical declaration of the same name collides with (#6397)
function to_json_schema_processSchema(schema, ctx, _params = { path: [], schemaPath: [] }) {
    var _a;
    const def = schema._zod.def;
    // check for schema in seens
    const seen = ctx.seen.get(schema);
    if (seen) {
        seen.count++;
        // check if cycle
        const isCycle = _params.schemaPath.includes(schema);
        if (isCycle) {
            seen.cycle = _params.path;
        }
        return seen.schema;
    }
    // initialize
    const result = { schema: {}, count: 1, cycle: undefined, path: _params.path };
    ctx.seen.set(schema, result);
    ctx.sharedDefsExtractedFor = undefined;
    ctx.sharedEmitDoneFor = undefined;
    // custom method overrides default behavior
    const overrideSchema = schema._zod.toJSONSchema?.();
    if (overrideSchema) {
        result.schema = overrideSchema;
    }
    else {
        const params = {
            ..._params,
            schemaPath: [..._params.schemaPath, schema],
            path: _params.path,
        };
        if (schema._zod.processJSONSchema) {
            schema._zod.processJSONSchema(ctx, result.schema, params);
        }
        else {
            const _json = result.schema;
            const processor = ctx.processors[def.type];
            if (!processor) {
                throw new Error(`[toJSONSchema]: Non-representable type encountered: ${def.type}`);
            }
            processor(schema, ctx, _json, params);
        }
        const parent = schema._zod.parent;
        if (parent) {
            // Also set ref if processor didn't (for inheritance)
            if (!result.ref)
                result.ref = parent;
            to_json_schema_processSchema(parent, ctx, params);
            ctx.seen.get(parent).isParent = true;
        }
    }
    // metadata
    const meta = ctx.metadataRegistry.get(schema);
    if (meta)
        assignProps(result.schema, meta);
    if (ctx.io === "input" && isTransforming(schema)) {
        // examples/defaults only apply to output type of pipe
        delete result.schema.examples;
        delete result.schema.default;
    }
    // set prefault as default
    if (ctx.io === "input" && "_prefault" in result.schema)
        (_a = result.schema).default ?? (_a.default = result.schema._prefault);
    delete result.schema._prefault;
    // pulling fresh from ctx.seen in case it was overwritten
    const _result = ctx.seen.get(schema);
    return _result.schema;
}
/** @deprecated Renamed to `processSchema`. An export alias declares no binding, so it is safe to keep. */

// Escape a reference token for use in a JSON Pointer fragment (RFC 6901): `~` becomes `~0` and `/` becomes `~1`. The `~` replacement must run first.
function encodeJSONPointerSegment(segment) {
    return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
function to_json_schema_extractDefs(ctx, schema
// params: EmitParams
) {
    // iterate over seen map;
    const root = ctx.seen.get(schema);
    if (!root)
        throw new Error("Unprocessed schema. This is a bug in Zod.");
    // With `external` set, every registered schema resolves through the external branch of `makeURI`, so the root branch below produces the same ref the external branch would — this pass is identical whichever schema it is called with, and only needs to run once.
    if (ctx.external && ctx.sharedDefsExtractedFor === ctx.external)
        return;
    // Track ids to detect duplicates across different schemas
    const idToSchema = new Map();
    for (const entry of ctx.seen.entries()) {
        const id = ctx.metadataRegistry.get(entry[0])?.id;
        if (id) {
            const existing = idToSchema.get(id);
            if (existing && existing !== entry[0]) {
                throw new Error(`Duplicate schema id "${id}" detected during JSON Schema conversion. Two different schemas cannot share the same id when converted together.`);
            }
            idToSchema.set(id, entry[0]);
        }
    }
    // returns a ref to the schema defId will be empty if the ref points to an external schema (or #)
    const makeURI = (entry) => {
        // comparing the seen objects because sometimes multiple schemas map to the same seen object. e.g. lazy
        // external is configured
        const defsSegment = ctx.target === "draft-2020-12" ? "$defs" : "definitions";
        if (ctx.external) {
            const externalId = ctx.external.registry.get(entry[0])?.id; // ?? "__shared";// `__schema${ctx.counter++}`;
            // check if schema is in the external registry
            const uriGenerator = ctx.external.uri ?? ((id) => id);
            if (externalId) {
                return { ref: uriGenerator(externalId) };
            }
            // otherwise, add to __shared
            const id = entry[1].defId ?? entry[1].schema.id ?? `schema${ctx.counter++}`;
            entry[1].defId = id; // set defId so it will be reused if needed
            return { defId: id, ref: `${uriGenerator("__shared")}#/${defsSegment}/${encodeJSONPointerSegment(id)}` };
        }
        const uriPrefix = `#`;
        const defUriPrefix = `${uriPrefix}/${defsSegment}/`;
        // an id-less root has nowhere to be extracted to, so it stays inline and self-references as `#`
        if (entry[1] === root && !entry[1].schema.id) {
            return { ref: uriPrefix };
        }
        // self-contained schema
        const defId = entry[1].schema.id ?? `__schema${ctx.counter++}`;
        return { defId, ref: defUriPrefix + encodeJSONPointerSegment(defId) };
    };
    // stored cached version in `def` property remove all properties, set $ref
    const extractToDef = (entry) => {
        // if the schema is already a reference, do not extract it
        if (entry[1].schema.$ref) {
            return;
        }
        const seen = entry[1];
        const { ref, defId } = makeURI(entry);
        seen.def = { ...seen.schema };
        // defId won't be set if the schema is a reference to an external schema or if the schema is the root schema
        if (defId)
            seen.defId = defId;
        // wipe away all properties except $ref
        const schema = seen.schema;
        for (const key in schema) {
            delete schema[key];
        }
        schema.$ref = ref;
    };
    // throw on cycles
    // break cycles
    if (ctx.cycles === "throw") {
        for (const entry of ctx.seen.entries()) {
            const seen = entry[1];
            if (seen.cycle) {
                throw new Error("Cycle detected: " +
                    `#/${seen.cycle?.join("/")}/<root>` +
                    '\n\nSet the `cycles` parameter to `"ref"` to resolve cyclical schemas with defs.');
            }
        }
    }
    // extract schemas into $defs
    for (const entry of ctx.seen.entries()) {
        const seen = entry[1];
        // convert root schema to # $ref
        if (schema === entry[0]) {
            extractToDef(entry); // this has special handling for the root schema
            continue;
        }
        // extract schemas that are in the external registry
        if (ctx.external) {
            const ext = ctx.external.registry.get(entry[0])?.id;
            if (schema !== entry[0] && ext) {
                extractToDef(entry);
                continue;
            }
        }
        // extract schemas with `id` meta
        const id = ctx.metadataRegistry.get(entry[0])?.id;
        if (id) {
            extractToDef(entry);
            continue;
        }
        // break cycles
        if (seen.cycle) {
            // any
            extractToDef(entry);
            continue;
        }
        // extract reused schemas
        if (seen.count > 1) {
            if (ctx.reused === "ref") {
                extractToDef(entry);
            }
        }
    }
    if (ctx.external)
        ctx.sharedDefsExtractedFor = ctx.external;
}
/** Rewrites `anyOf: [{type: "a"}, {type: "b"}]` to `type: ["a", "b"]`, which every JSON Schema draft treats as equivalent and most consumers render far better for the nullable case. Only branches that are a bare type assertion qualify — anything carrying a constraint, `$ref`, `const` or metadata is left alone. Runs after `flattenRef`, so a branch an override decorated or `$defs` extraction turned into a `$ref` is no longer bare and correctly stays in `anyOf`. `oneOf` is excluded: `integer` and `number` overlap, so "exactly one" and "at least one" are not the same there. OpenAPI 3.0 is excluded: its `type` must be a single string. */
function compactTypeUnion(schema) {
    const options = schema.anyOf;
    if (!Array.isArray(options) || options.length === 0 || schema.type !== undefined)
        return;
    const types = [];
    for (const option of options) {
        if (!option || typeof option !== "object")
            return;
        // A branch that is itself a compactible union folds into this one — nested `anyOf` and a flat `type` array say the same thing. Compacting it first also makes the result independent of the order this pass walks the seen map in.
        compactTypeUnion(option);
        const keys = Object.keys(option);
        if (keys.length !== 1 || keys[0] !== "type")
            return;
        const type = option.type;
        for (const member of Array.isArray(type) ? type : [type]) {
            if (typeof member !== "string")
                return;
            if (!types.includes(member))
                types.push(member);
        }
    }
    delete schema.anyOf;
    // A `type` array must be non-empty and unique (metaschema); a single member is spelled as a bare string.
    schema.type = types.length === 1 ? types[0] : types;
}
/** Keywords `foldIntersection` knows how to combine. Anything else — `$ref`, `patternProperties`,
 * an annotation like `description` — makes a member unfoldable, so a constraint this does not
 * understand leaves the `allOf` alone instead of being silently dropped or misattributed. */
const FOLDABLE_KEYS = new Set(["type", "properties", "required", "additionalProperties"]);
const UNION_KEYS = ["oneOf", "anyOf"];
/** A member's constraint on a key it does not declare itself. A `catchall` states one; `false`, an absent `additionalProperties`, and the empty schema a loose object emits state nothing. */
function undeclaredConstraint(member) {
    const extra = member.additionalProperties;
    if (extra === undefined || extra === false || typeof extra !== "object" || extra === null)
        return null;
    return Object.keys(extra).length ? extra : null;
}
/** Combines object members into the single object they describe together, or returns `null` if any of them carries a keyword outside {@link FOLDABLE_KEYS}. */
function foldObjects(members) {
    const objects = [];
    for (const member of members) {
        // A boolean subschema is legal JSON Schema and carries no keywords to fold.
        if (typeof member !== "object" || member.type !== "object")
            return null;
        for (const key in member) {
            if (!FOLDABLE_KEYS.has(key))
                return null;
        }
        objects.push(member);
    }
    const properties = {};
    const required = new Set();
    for (const object of objects) {
        for (const key in object.properties) {
            // `in` would report a `__proto__` key as already present via the prototype chain and skip it.
            if (Object.prototype.hasOwnProperty.call(properties, key))
                continue;
            // Every member constrains this key: the ones that declare it say how, and a `catchall` member constrains it too even though it does not name it. The key has to satisfy all of them, which is the same intersection one level down.
            const parts = [];
            for (const other of objects) {
                const part = other.properties?.[key] ?? undeclaredConstraint(other);
                if (part === null || part === undefined)
                    continue;
                if (!parts.some((seen) => JSON.stringify(seen) === JSON.stringify(part)))
                    parts.push(part);
            }
            const merged = parts.length === 1
                ? parts[0]
                : (foldObjects(parts) ?? { allOf: parts });
            util_assignProp(properties, key, merged);
        }
        for (const key of object.required ?? [])
            required.add(key);
    }
    const folded = { type: "object", properties };
    if (required.size)
        folded.required = [...required];
    // A key no member declares is rejected only when every member rejects it, so the fold is closed only when every member is. Otherwise it carries whatever the `catchall` members demand of such a key.
    if (objects.every((object) => object.additionalProperties === false)) {
        folded.additionalProperties = false;
    }
    else {
        const constraints = [];
        for (const object of objects) {
            const constraint = undeclaredConstraint(object);
            if (constraint && !constraints.some((seen) => JSON.stringify(seen) === JSON.stringify(constraint)))
                constraints.push(constraint);
        }
        if (constraints.length === 1)
            folded.additionalProperties = constraints[0];
        else if (constraints.length > 1)
            folded.additionalProperties = { allOf: constraints };
    }
    return folded;
}
/** `additionalProperties` in an `allOf` member sees only that member's own `properties`, so two
 * closed object members reject each other's keys and the schema validates nothing. Zod's parser
 * pools the key sets instead — `handleIntersectionResults` reports a key as unrecognized only when
 * *every* side rejects it — so the emitted schema has to pool them too, and folding the members
 * into one object is the encoding that says so on every target.
 *
 * This runs from `finalize`, after `extractDefs`, which is what keeps it clear of the `$ref`
 * machinery: a member extracted into `$defs` is already a `$ref` by now and declines to fold, so it
 * keeps its reference and its own closedness rather than being inlined as a stale copy. */
function foldIntersection(json) {
    const allOf = json.allOf;
    if (!Array.isArray(allOf) || allOf.length < 2)
        return;
    // An `override` runs before this pass and may have written object keywords onto the intersection itself. Those are deliberate, so decline rather than overwrite them.
    for (const key of FOLDABLE_KEYS)
        if (key in json)
            return;
    // An intersection distributes over a union: `A & (X | Y)` is `(A & X) | (A & Y)`. Only the first union is distributed over; a second one stays among the members every branch folds against, where it fails the object check and declines the whole intersection rather than multiplying out.
    const unions = allOf.filter((m) => UNION_KEYS.some((k) => Array.isArray(m[k])));
    let folded = null;
    if (!unions.length) {
        folded = foldObjects(allOf);
    }
    else {
        const union = unions[0];
        const keyword = UNION_KEYS.find((k) => Array.isArray(union[k]));
        if (Object.keys(union).length !== 1)
            return;
        const rest = allOf.filter((m) => m !== union);
        const branches = union[keyword].map((branch) => foldObjects([...rest, branch]));
        if (branches.some((b) => !b))
            return;
        folded = { [keyword]: branches };
    }
    if (!folded)
        return;
    delete json.allOf;
    assignProps(json, folded);
}
function to_json_schema_finalize(ctx, schema) {
    const root = ctx.seen.get(schema);
    if (!root)
        throw new Error("Unprocessed schema. This is a bug in Zod.");
    // flatten refs - inherit properties from parent schemas
    const flattenRef = (zodSchema) => {
        const seen = ctx.seen.get(zodSchema);
        // already processed
        if (seen.ref === null)
            return;
        const schema = seen.def ?? seen.schema;
        const _cached = { ...schema };
        const ref = seen.ref;
        seen.ref = null; // prevent infinite recursion
        if (ref) {
            flattenRef(ref);
            const refSeen = ctx.seen.get(ref);
            const refSchema = refSeen.schema;
            // merge referenced schema into current
            if (refSchema.$ref && (ctx.target === "draft-07" || ctx.target === "draft-04" || ctx.target === "openapi-3.0")) {
                // older drafts can't combine $ref with other properties
                schema.allOf = schema.allOf ?? [];
                schema.allOf.push(refSchema);
            }
            else {
                assignProps(schema, refSchema);
            }
            // restore child's own properties (child wins)
            assignProps(schema, _cached);
            const isParentRef = zodSchema._zod.parent === ref;
            // For parent chain, child is a refinement - remove parent-only properties
            if (isParentRef) {
                for (const key in schema) {
                    if (key === "$ref" || key === "allOf")
                        continue;
                    if (!(key in _cached)) {
                        delete schema[key];
                    }
                }
            }
            // When ref was extracted to $defs, remove properties that match the definition
            if (refSchema.$ref && refSeen.def) {
                for (const key in schema) {
                    if (key === "$ref" || key === "allOf")
                        continue;
                    if (key in refSeen.def && JSON.stringify(schema[key]) === JSON.stringify(refSeen.def[key])) {
                        delete schema[key];
                    }
                }
            }
        }
        // If parent was extracted (has $ref), propagate $ref to this schema. This handles cases like: readonly().meta({id}).describe() where processor sets ref to innerType but parent should be referenced
        const parent = zodSchema._zod.parent;
        if (parent && parent !== ref) {
            // Ensure parent is processed first so its def has inherited properties
            flattenRef(parent);
            const parentSeen = ctx.seen.get(parent);
            if (parentSeen?.schema.$ref) {
                schema.$ref = parentSeen.schema.$ref;
                // De-duplicate with parent's definition
                if (parentSeen.def) {
                    for (const key in schema) {
                        if (key === "$ref" || key === "allOf")
                            continue;
                        if (key in parentSeen.def && JSON.stringify(schema[key]) === JSON.stringify(parentSeen.def[key])) {
                            delete schema[key];
                        }
                    }
                }
            }
        }
        // execute overrides
        ctx.override({
            zodSchema: zodSchema,
            jsonSchema: schema,
            path: seen.path ?? [],
        });
    };
    // Flattening walks the whole map and clears each `ref` as it goes, so a second call over the same map is a no-op scan. Skip it outright once it has run for a registry conversion.
    if (!ctx.external || ctx.sharedEmitDoneFor !== ctx.external) {
        for (const entry of [...ctx.seen.entries()].reverse()) {
            flattenRef(entry[0]);
        }
        if (ctx.target !== "openapi-3.0") {
            for (const entry of ctx.seen.entries()) {
                compactTypeUnion(entry[1].def ?? entry[1].schema);
            }
        }
        for (const rewrite of ctx.deferred)
            rewrite();
        // After flattening, every member that was extracted is a `$ref`, so the fold sees the final shape. A schema that inherits an intersection — through `z.lazy`, or any `ref` chain — holds the same `allOf` array, so fold by array identity to catch every copy.
        if (ctx.intersections.length) {
            const carriers = new Map();
            for (const seen of ctx.seen.values()) {
                for (const json of [seen.schema, seen.def]) {
                    const allOf = json?.allOf;
                    if (!Array.isArray(allOf))
                        continue;
                    const existing = carriers.get(allOf);
                    if (existing)
                        existing.push(json);
                    else
                        carriers.set(allOf, [json]);
                }
            }
            for (const allOf of ctx.intersections) {
                for (const json of carriers.get(allOf) ?? [])
                    foldIntersection(json);
            }
        }
    }
    const result = {};
    if (ctx.target === "draft-2020-12") {
        result.$schema = "https://json-schema.org/draft/2020-12/schema";
    }
    else if (ctx.target === "draft-07") {
        result.$schema = "http://json-schema.org/draft-07/schema#";
    }
    else if (ctx.target === "draft-04") {
        result.$schema = "http://json-schema.org/draft-04/schema#";
    }
    else if (ctx.target === "openapi-3.0") {
        // OpenAPI 3.0 schema objects should not include a $schema property
    }
    else {
        // Arbitrary string values are allowed but won't have a $schema property set
    }
    if (ctx.external?.uri) {
        const id = ctx.external.registry.get(schema)?.id;
        if (!id)
            throw new Error("Schema is missing an `id` property");
        result.$id = ctx.external.uri(id);
    }
    // when the root was extracted into $defs, `root.schema` is the `$ref` wrapper and `root.def` is the body that now lives under $defs
    assignProps(result, root.defId ? root.schema : (root.def ?? root.schema));
    // The `id` in `.meta()` is a Zod-specific registration tag used to extract schemas into $defs — it is not user-facing JSON Schema metadata. Strip it from the output body where it would otherwise leak. The id is preserved implicitly via the $defs key (and via $ref paths).
    const rootMetaId = ctx.metadataRegistry.get(schema)?.id;
    if (rootMetaId !== undefined && result.id === rootMetaId)
        delete result.id;
    // build defs object. With `external`, `defs` is the shared object every schema writes into, so the same entries are reassigned on every call. Without it, `defs` is fresh per call and must be rebuilt.
    const defs = ctx.external?.defs ?? {};
    if (!ctx.external || ctx.sharedEmitDoneFor !== ctx.external) {
        for (const entry of ctx.seen.entries()) {
            const seen = entry[1];
            if (seen.def && seen.defId) {
                if (seen.def.id === seen.defId)
                    delete seen.def.id;
                util_assignProp(defs, seen.defId, seen.def);
            }
        }
    }
    if (ctx.external)
        ctx.sharedEmitDoneFor = ctx.external;
    // set definitions in result
    if (ctx.external) {
    }
    else {
        if (Object.keys(defs).length > 0) {
            if (ctx.target === "draft-2020-12") {
                result.$defs = defs;
            }
            else {
                result.definitions = defs;
            }
        }
    }
    try {
        // this "finalizes" this schema and ensures all cycles are removed each call to finalize() is functionally independent though the seen map is shared
        const finalized = JSON.parse(JSON.stringify(result));
        Object.defineProperty(finalized, "~standard", {
            value: {
                ...schema["~standard"],
                jsonSchema: {
                    input: createStandardJSONSchemaMethod(schema, "input", ctx.processors),
                    output: createStandardJSONSchemaMethod(schema, "output", ctx.processors),
                },
            },
            enumerable: false,
            writable: false,
        });
        return finalized;
    }
    catch (_err) {
        throw new Error("Error converting schema to JSON.");
    }
}
function isTransforming(_schema, _ctx) {
    const ctx = _ctx ?? { seen: new Set() };
    if (ctx.seen.has(_schema))
        return false;
    ctx.seen.add(_schema);
    const def = _schema._zod.def;
    if (def.type === "transform")
        return true;
    if (def.type === "array")
        return isTransforming(def.element, ctx);
    if (def.type === "set")
        return isTransforming(def.valueType, ctx);
    if (def.type === "lazy")
        return isTransforming(def.getter(), ctx);
    if (def.type === "promise" ||
        def.type === "optional" ||
        def.type === "nonoptional" ||
        def.type === "nullable" ||
        def.type === "readonly" ||
        def.type === "default" ||
        def.type === "prefault" ||
        def.type === "catch") {
        return isTransforming(def.innerType, ctx);
    }
    if (def.type === "intersection") {
        return isTransforming(def.left, ctx) || isTransforming(def.right, ctx);
    }
    if (def.type === "record" || def.type === "map") {
        return isTransforming(def.keyType, ctx) || isTransforming(def.valueType, ctx);
    }
    if (def.type === "pipe") {
        if (_schema._zod.traits.has("$ZodCodec"))
            return true;
        return isTransforming(def.in, ctx) || isTransforming(def.out, ctx);
    }
    if (def.type === "object") {
        for (const key in def.shape) {
            if (isTransforming(def.shape[key], ctx))
                return true;
        }
        return false;
    }
    if (def.type === "union") {
        for (const option of def.options) {
            if (isTransforming(option, ctx))
                return true;
        }
        return false;
    }
    if (def.type === "tuple") {
        for (const item of def.items) {
            if (isTransforming(item, ctx))
                return true;
        }
        if (def.rest && isTransforming(def.rest, ctx))
            return true;
        return false;
    }
    return false;
}
/**
 * Creates a toJSONSchema method for a schema instance.
 * This encapsulates the logic of initializing context, processing, extracting defs, and finalizing.
 */
const createToJSONSchemaMethod = (schema, processors = {}) => (params) => {
    const ctx = to_json_schema_initializeContext({ ...params, processors });
    to_json_schema_processSchema(schema, ctx);
    to_json_schema_extractDefs(ctx, schema);
    return to_json_schema_finalize(ctx, schema);
};
const createStandardJSONSchemaMethod = (schema, io, processors = {}) => (params) => {
    const { libraryOptions, target } = params ?? {};
    const ctx = to_json_schema_initializeContext({ ...(libraryOptions ?? {}), target, io, processors });
    to_json_schema_processSchema(schema, ctx);
    to_json_schema_extractDefs(ctx, schema);
    return to_json_schema_finalize(ctx, schema);
};

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/json-schema-processors.js




const narrowMin = (agg, key, value) => {
    if (agg[key] === undefined || value > agg[key])
        agg[key] = value;
};
const narrowMax = (agg, key, value) => {
    if (agg[key] === undefined || value < agg[key])
        agg[key] = value;
};
const narrowBoth = (agg, value) => {
    narrowMin(agg, "minimum", value);
    narrowMax(agg, "maximum", value);
};
const addDivisor = (agg, value) => {
    agg.multipleOf ?? (agg.multipleOf = []);
    if (!agg.multipleOf.includes(value))
        agg.multipleOf.push(value);
};
const addPattern = (agg, pattern) => {
    agg.patterns ?? (agg.patterns = new Set());
    agg.patterns.add(pattern);
};
const intersectMime = (agg, mime) => {
    agg.mime = agg.mime ? agg.mime.filter((m) => mime.includes(m)) : [...mime];
};
// last-wins, matching the bag's historical write order; the flag keeps an integer format from being lost to a later float one
const setFormat = (agg, format) => {
    agg.format = format;
    if (format.includes("int"))
        agg.isInt = true;
};
const minContributor = (agg, def) => narrowMin(agg, "minimum", def.minimum);
const maxContributor = (agg, def) => narrowMax(agg, "maximum", def.maximum);
const formatContributor = (ranges) => (agg, def) => {
    setFormat(agg, def.format);
    const [minimum, maximum] = ranges[def.format];
    narrowMin(agg, "minimum", minimum);
    narrowMax(agg, "maximum", maximum);
};
const contributors = {
    greater_than: (agg, def) => narrowMin(agg, def.inclusive ? "minimum" : "exclusiveMinimum", def.value),
    less_than: (agg, def) => narrowMax(agg, def.inclusive ? "maximum" : "exclusiveMaximum", def.value),
    multiple_of: (agg, def) => addDivisor(agg, def.value),
    number_format: formatContributor(NUMBER_FORMAT_RANGES),
    bigint_format: formatContributor(BIGINT_FORMAT_RANGES),
    min_length: minContributor,
    max_length: maxContributor,
    length_equals: (agg, def) => narrowBoth(agg, def.length),
    min_size: minContributor,
    max_size: maxContributor,
    size_equals: (agg, def) => narrowBoth(agg, def.size),
    string_format: (agg, def) => {
        setFormat(agg, def.format);
        if (def.pattern)
            addPattern(agg, def.pattern);
        if (def.format === "base64" || def.format === "base64url")
            agg.contentEncoding = def.format;
        if (def.local || def.precision === -1)
            agg.laxFormat = true;
    },
    mime_type: (agg, def) => intersectMime(agg, def.mime),
};
function aggregateChecks(schema) {
    const agg = {};
    const def = schema._zod.def;
    // a format schema is its own first check, same rule as $ZodType init
    const list = schema._zod.traits.has("$ZodCheck")
        ? [schema, ...(def.checks ?? [])]
        : (def.checks ?? []);
    for (const ch of list)
        contributors[ch._zod.def.check]?.(agg, ch._zod.def);
    // reconcile with the bag so third-party onattach contributions still land; first-party residue is never tighter than the fold, so merging it back is idempotent for one and additive for the other
    const bag = schema._zod.bag;
    if (bag.minimum !== undefined)
        narrowMin(agg, "minimum", bag.minimum);
    if (bag.exclusiveMinimum !== undefined)
        narrowMin(agg, "exclusiveMinimum", bag.exclusiveMinimum);
    if (bag.maximum !== undefined)
        narrowMax(agg, "maximum", bag.maximum);
    if (bag.exclusiveMaximum !== undefined)
        narrowMax(agg, "exclusiveMaximum", bag.exclusiveMaximum);
    if (bag.multipleOf !== undefined)
        addDivisor(agg, bag.multipleOf);
    if (bag.format !== undefined) {
        agg.format ?? (agg.format = bag.format);
        if (bag.format.includes("int"))
            agg.isInt = true;
    }
    if (bag.mime)
        intersectMime(agg, bag.mime);
    for (const pattern of bag.patterns ?? [])
        addPattern(agg, pattern);
    return agg;
}
const formatMap = {
    guid: "uuid",
    url: "uri",
    datetime: "date-time",
    json_string: "json-string",
    regex: "", // do not set
};
// ==================== SIMPLE TYPE PROCESSORS ====================
// the runtime patterns are lax so parse paths never overflow the regex stack; the emitted schema swaps in the exact block forms, which zod itself never executes
const exactPatterns = new Map([
    [base64Charset, base64],
    [base64urlCharset, base64url],
]);
const exactPattern = (p) => exactPatterns.get(p) ?? p;
const stringProcessor = (schema, ctx, _json, _params) => {
    const json = _json;
    json.type = "string";
    const { minimum, maximum, format, patterns, contentEncoding, laxFormat } = aggregateChecks(schema);
    if (typeof minimum === "number")
        json.minLength = minimum;
    if (typeof maximum === "number")
        json.maxLength = maximum;
    // custom pattern overrides format
    if (format) {
        json.format = formatMap[format] ?? format;
        if (json.format === "")
            delete json.format; // empty format is not valid
        // `z.iso.time()` is never full-time, and `laxFormat` carries the datetime shapes that also accept what their keyword forbids
        if (format === "time" || laxFormat) {
            delete json.format;
        }
    }
    if (contentEncoding)
        json.contentEncoding = contentEncoding;
    if (patterns && patterns.size > 0) {
        const patternList = [...patterns].map(exactPattern);
        if (patternList.length === 1)
            json.pattern = patternList[0].source;
        else if (patternList.length > 1) {
            json.allOf = [
                ...patternList.map((regex) => ({
                    ...(ctx.target === "draft-07" || ctx.target === "draft-04" || ctx.target === "openapi-3.0"
                        ? { type: "string" }
                        : {}),
                    pattern: regex.source,
                })),
            ];
        }
    }
};
const numberProcessor = (schema, ctx, _json, params) => {
    const json = _json;
    const { minimum, maximum, multipleOf, exclusiveMaximum, exclusiveMinimum, isInt } = aggregateChecks(schema);
    json.type = isInt ? "integer" : "number";
    // when both minimum and exclusiveMinimum exist, pick the more restrictive one
    const exMin = typeof exclusiveMinimum === "number" && exclusiveMinimum >= (minimum ?? Number.NEGATIVE_INFINITY);
    const exMax = typeof exclusiveMaximum === "number" && exclusiveMaximum <= (maximum ?? Number.POSITIVE_INFINITY);
    const legacy = ctx.target === "draft-04" || ctx.target === "openapi-3.0";
    if (exMin) {
        if (legacy) {
            json.minimum = exclusiveMinimum;
            json.exclusiveMinimum = true;
        }
        else {
            json.exclusiveMinimum = exclusiveMinimum;
        }
    }
    else if (typeof minimum === "number") {
        json.minimum = minimum;
    }
    if (exMax) {
        if (legacy) {
            json.maximum = exclusiveMaximum;
            json.exclusiveMaximum = true;
        }
        else {
            json.exclusiveMaximum = exclusiveMaximum;
        }
    }
    else if (typeof maximum === "number") {
        json.maximum = maximum;
    }
    if (multipleOf) {
        // JSON Schema requires a divisor strictly greater than zero, and a non-finite one does not survive JSON at all. A negative divisor accepts exactly what its absolute value accepts, so it still maps; zero, NaN and Infinity have no keyword form.
        const divisors = new Set();
        for (const divisor of multipleOf) {
            if (Number.isFinite(divisor) && divisor !== 0)
                divisors.add(Math.abs(divisor));
            else
                handleUnrepresentable(schema, ctx, json, params, `A multipleOf divisor of ${divisor} cannot be represented in JSON Schema`);
        }
        // chained divisors are a conjunction the keyword cannot carry alone, so extras ride an allOf, same as stacked patterns
        const [first, ...rest] = divisors;
        if (first !== undefined)
            json.multipleOf = first;
        if (rest.length)
            json.allOf = [...(json.allOf ?? []), ...rest.map((m) => ({ multipleOf: m }))];
    }
};
const booleanProcessor = (_schema, _ctx, json, _params) => {
    json.type = "boolean";
};
const bigintProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "BigInt cannot be represented in JSON Schema");
};
const symbolProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Symbols cannot be represented in JSON Schema");
};
const nullProcessor = (_schema, ctx, json, _params) => {
    if (ctx.target === "openapi-3.0") {
        json.type = "string";
        json.nullable = true;
        json.enum = [null];
    }
    else {
        json.type = "null";
    }
};
const undefinedProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Undefined cannot be represented in JSON Schema");
};
const voidProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Void cannot be represented in JSON Schema");
};
const neverProcessor = (_schema, _ctx, json, _params) => {
    json.not = {};
};
const anyProcessor = (_schema, _ctx, _json, _params) => {
    // empty schema accepts anything
};
const unknownProcessor = (_schema, _ctx, _json, _params) => {
    // empty schema accepts anything
};
const dateProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Date cannot be represented in JSON Schema");
};
const enumProcessor = (schema, _ctx, json, _params) => {
    const def = schema._zod.def;
    const values = getEnumValues(def.entries);
    // an empty enum accepts nothing, same as z.never()
    if (values.length === 0) {
        json.not = {};
        return;
    }
    // Number enums can have both string and number values
    if (values.every((v) => typeof v === "number"))
        json.type = "number";
    if (values.every((v) => typeof v === "string"))
        json.type = "string";
    json.enum = values;
};
const literalProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    // a literal with no values accepts nothing, same as z.never()
    if (def.values.length === 0) {
        json.not = {};
        return;
    }
    const vals = [];
    for (const val of def.values) {
        if (val === undefined) {
            // a custom schema replaces the whole literal, so there is nothing left to accumulate
            if (handleUnrepresentable(schema, ctx, json, params, "Literal `undefined` cannot be represented in JSON Schema"))
                return;
            // otherwise do not add to vals
        }
        else if (typeof val === "bigint") {
            if (handleUnrepresentable(schema, ctx, json, params, "BigInt literals cannot be represented in JSON Schema"))
                return;
            vals.push(Number(val));
        }
        else {
            vals.push(val);
        }
    }
    if (vals.length === 0) {
        // do nothing (an undefined literal was stripped)
    }
    else if (vals.length === 1) {
        const val = vals[0];
        json.type = val === null ? "null" : typeof val;
        if (ctx.target === "draft-04" || ctx.target === "openapi-3.0") {
            json.enum = [val];
        }
        else {
            json.const = val;
        }
    }
    else {
        if (vals.every((v) => typeof v === "number"))
            json.type = "number";
        if (vals.every((v) => typeof v === "string"))
            json.type = "string";
        if (vals.every((v) => typeof v === "boolean"))
            json.type = "boolean";
        if (vals.every((v) => v === null))
            json.type = "null";
        json.enum = vals;
    }
};
const nanProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "NaN cannot be represented in JSON Schema");
};
const templateLiteralProcessor = (schema, _ctx, json, _params) => {
    const _json = json;
    const pattern = schema._zod.pattern;
    if (!pattern)
        throw new Error("Pattern not found in template literal");
    _json.type = "string";
    _json.pattern = pattern.source;
};
const fileProcessor = (schema, _ctx, json, _params) => {
    const _json = json;
    _json.type = "string";
    _json.format = "binary";
    _json.contentEncoding = "binary";
    const { minimum, maximum, mime } = aggregateChecks(schema);
    if (minimum !== undefined)
        _json.minLength = minimum;
    if (maximum !== undefined)
        _json.maxLength = maximum;
    if (!mime)
        return;
    // an empty intersection means the mime checks share no value, so nothing passes at runtime; `anyOf` must be non-empty, so the false schema is `not: {}`
    if (mime.length === 0)
        _json.not = {};
    else if (mime.length === 1)
        _json.contentMediaType = mime[0];
    // only contentMediaType differs, so the shared props stay at the root
    else
        _json.anyOf = mime.map((m) => ({ contentMediaType: m }));
};
const successProcessor = (_schema, _ctx, json, _params) => {
    json.type = "boolean";
};
const customProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Custom types cannot be represented in JSON Schema");
};
const functionProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Function types cannot be represented in JSON Schema");
};
const transformProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Transforms cannot be represented in JSON Schema");
};
const mapProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Map cannot be represented in JSON Schema");
};
const setProcessor = (schema, ctx, json, params) => {
    handleUnrepresentable(schema, ctx, json, params, "Set cannot be represented in JSON Schema");
};
// ==================== COMPOSITE TYPE PROCESSORS ====================
const arrayProcessor = (schema, ctx, _json, params) => {
    const json = _json;
    const def = schema._zod.def;
    const { minimum, maximum } = aggregateChecks(schema);
    if (typeof minimum === "number")
        json.minItems = minimum;
    if (typeof maximum === "number")
        json.maxItems = maximum;
    json.type = "array";
    json.items = to_json_schema_processSchema(def.element, ctx, {
        ...params,
        path: [...params.path, "items"],
    });
};
// Transform and catch set `optin = "optional"` at runtime so the parser lets them observe an
// absent key, but their declared input type stays required. An input JSON Schema describes the
// declared type, so resolve past them to the schema that actually carries the optionality.
// Used by both `objectProcessor` (for `required`) and `tupleProcessor` (for `minItems`); see
// wiki/optionality.md, "The JSON Schema emitter reads the *static* value".
function inputOptin(schema) {
    const def = schema._zod.def;
    if (def.type === "pipe" && def.in._zod.traits.has("$ZodTransform")) {
        return inputOptin(def.out);
    }
    if (def.type === "catch") {
        return inputOptin(def.innerType);
    }
    return schema._zod.optin;
}
const objectProcessor = (schema, ctx, _json, params) => {
    const json = _json;
    const def = schema._zod.def;
    const shape = def.shape;
    // dropping it while still emitting `additionalProperties: false` would emit a schema that rejects data this one requires
    const symbolKeys = Object.getOwnPropertySymbols(shape);
    if (symbolKeys.length &&
        handleUnrepresentable(schema, ctx, json, params, "Symbol keys cannot be represented in JSON Schema")) {
        return;
    }
    json.type = "object";
    json.properties = {};
    for (const key in shape) {
        // assignProp so a __proto__ key becomes an own property instead of hitting the inherited setter on the plain {} we build into
        util_assignProp(json.properties, key, to_json_schema_processSchema(shape[key], ctx, {
            ...params,
            path: [...params.path, "properties", key],
        }));
    }
    // required keys
    const requiredKeys = [];
    for (const key of Object.keys(shape)) {
        const field = def.shape[key];
        if (ctx.io === "input" ? inputOptin(field) === undefined : field._zod.optout === undefined) {
            requiredKeys.push(key);
        }
    }
    if (requiredKeys.length > 0) {
        json.required = requiredKeys;
    }
    // catchall
    if (def.catchall?._zod.def.type === "never") {
        // strict
        json.additionalProperties = false;
    }
    else if (!def.catchall) {
        // regular
        if (ctx.io === "output")
            json.additionalProperties = false;
    }
    else if (def.catchall) {
        json.additionalProperties = to_json_schema_processSchema(def.catchall, ctx, {
            ...params,
            path: [...params.path, "additionalProperties"],
        });
    }
};
const unionProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    // Exclusive unions (inclusive === false) use oneOf (exactly one match) instead of anyOf (one or more matches). This includes both z.xor() and discriminated unions
    const isExclusive = def.inclusive === false;
    const options = def.options.map((x, i) => to_json_schema_processSchema(x, ctx, {
        ...params,
        path: [...params.path, isExclusive ? "oneOf" : "anyOf", i],
    }));
    if (isExclusive) {
        json.oneOf = options;
    }
    else {
        json.anyOf = options;
    }
};
const intersectionProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    const a = to_json_schema_processSchema(def.left, ctx, {
        ...params,
        path: [...params.path, "allOf", 0],
    });
    const b = to_json_schema_processSchema(def.right, ctx, {
        ...params,
        path: [...params.path, "allOf", 1],
    });
    const isSimpleIntersection = (val) => "allOf" in val && Object.keys(val).length === 1;
    const allOf = [
        ...(isSimpleIntersection(a) ? a.allOf : [a]),
        ...(isSimpleIntersection(b) ? b.allOf : [b]),
    ];
    json.allOf = allOf;
    // Recorded innermost first, so a nested intersection has already folded by the time this one is considered. The array is the handle rather than the schema, because a wrapper that inherits this schema shares the same array; `finalize` folds every object holding it. See `foldIntersection`.
    ctx.intersections.push(allOf);
};
const tupleProcessor = (schema, ctx, _json, params) => {
    const json = _json;
    const def = schema._zod.def;
    json.type = "array";
    const prefixPath = ctx.target === "draft-2020-12" ? "prefixItems" : "items";
    const restPath = ctx.target === "draft-2020-12" ? "items" : ctx.target === "openapi-3.0" ? "items" : "additionalItems";
    const prefixItems = def.items.map((x, i) => to_json_schema_processSchema(x, ctx, {
        ...params,
        path: [...params.path, prefixPath, i],
    }));
    const rest = def.rest
        ? to_json_schema_processSchema(def.rest, ctx, {
            ...params,
            path: [...params.path, restPath, ...(ctx.target === "openapi-3.0" ? [def.items.length] : [])],
        })
        : null;
    let minItems = def.items.length;
    while (minItems > 0) {
        const item = def.items[minItems - 1];
        const optional = ctx.io === "input" ? inputOptin(item) !== undefined : item._zod.optout === "optional";
        if (!optional)
            break;
        minItems--;
    }
    const maxItems = def.items.length;
    const isClosed = !def.rest;
    if (ctx.target === "draft-2020-12") {
        json.prefixItems = prefixItems;
        if (isClosed) {
            json.items = false;
        }
        else if (rest) {
            json.items = rest;
        }
        if (minItems > 0)
            json.minItems = minItems;
        if (isClosed)
            json.maxItems = maxItems;
    }
    else if (ctx.target === "openapi-3.0") {
        json.items = {
            anyOf: prefixItems,
        };
        if (rest) {
            json.items.anyOf.push(rest);
        }
        if (minItems > 0)
            json.minItems = minItems;
        if (isClosed)
            json.maxItems = maxItems;
    }
    else {
        json.items = prefixItems;
        if (isClosed) {
            json.additionalItems = false;
        }
        else if (rest) {
            json.additionalItems = rest;
        }
        if (minItems > 0)
            json.minItems = minItems;
        if (isClosed)
            json.maxItems = maxItems;
    }
    // explicit user-defined length checks take precedence
    const { minimum, maximum } = aggregateChecks(schema);
    if (typeof minimum === "number")
        json.minItems = minimum;
    if (typeof maximum === "number")
        json.maxItems = maximum;
};
/** JSON object keys are always strings, so a numeric record key schema is re-expressed over the
 * numeric-string form the record parser matches. Deferred to `finalize`, after the flatten: a key
 * behind a wrapper only carries its own `type` before then, and a union key only has its branches.
 *
 * A numeric bound cannot apply to a property name, so `minimum` and its siblings are dropped rather
 * than carried over: keeping them beside `type: "string"` reproduces the match-nothing schema this
 * exists to fix. A key that carries one therefore emits wider than the record parses — `z.record(z.number().min(5), V)`
 * accepts `"3"` — which is the deliberate trade, since throwing on it would reject an ordinary schema
 * outright. */
function stringifyKeyNames(bySchema, json, visited) {
    // an extracted key that rewrites cannot go on sharing its definition — the string form a key position needs is not the number form every other reference wants — so it inlines. One that does not rewrite keeps the `$ref`.
    if (json.$ref) {
        // a recursive key holds its own reference inside its definition, so a node already on the path is left alone rather than resolved again
        if (visited.has(json))
            return json;
        visited.add(json);
        const def = bySchema.get(json)?.def;
        if (!def)
            return json;
        const inlined = stringifyKeyNames(bySchema, def, visited);
        return inlined === def ? json : inlined;
    }
    for (const keyword of ["anyOf", "oneOf"]) {
        const branches = json[keyword];
        if (!Array.isArray(branches))
            continue;
        const mapped = branches.map((branch) => stringifyKeyNames(bySchema, branch, visited));
        // rebuilding regardless would detach a key that had nothing to re-express, dropping its `$ref` and leaking the internal `id`
        if (mapped.some((branch, i) => branch !== branches[i]))
            json = { ...json, [keyword]: mapped };
    }
    // a member that already admits a string leaves the key unconstrained, so the node's own type re-expresses only when every member is numeric
    const types = Array.isArray(json.type) ? json.type : [json.type];
    const numericType = !types.includes("string") && types.some((t) => t === "number" || t === "integer");
    // a heterogeneous key carries no type at all, so its numeric members are caught here instead
    const values = json.enum ?? (json.const !== undefined ? [json.const] : undefined);
    if (!numericType && !values?.some((v) => typeof v === "number"))
        return json;
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, format, id, ...rest } = json;
    if (rest.enum)
        rest.enum = rest.enum.map((v) => (typeof v === "number" ? String(v) : v));
    else if (typeof rest.const === "number")
        rest.const = String(rest.const);
    // a heterogeneous key keeps its absent type: the stringified members already say what a key may be
    if (!numericType)
        return rest;
    rest.type = "string";
    if (!values)
        rest.pattern = (types.includes("number") ? number : integer).source;
    return rest;
}
/** Every record of one conversion, so the carriers are found in a single pass rather than once per record. */
const pendingRecords = new WeakMap();
function rewriteKeyNames(ctx) {
    // an extracted key is resolved by the object `extractToDef` left in its place, so the map is built once rather than searched per reference. `_zod.toJSONSchema` can hand the same object to two schemas, so the first entry carrying a body wins, as a search would have found it.
    const bySchema = new Map();
    for (const entry of ctx.seen.values()) {
        if (entry.def && !bySchema.has(entry.schema))
            bySchema.set(entry.schema, entry);
    }
    const rewrites = new Map();
    for (const record of pendingRecords.get(ctx) ?? []) {
        const seen = ctx.seen.get(record);
        const names = (seen?.def ?? seen?.schema)?.propertyNames;
        if (!names || names === true || rewrites.has(names))
            continue;
        const rewritten = stringifyKeyNames(bySchema, names, new Set());
        if (rewritten !== names)
            rewrites.set(names, rewritten);
    }
    if (!rewrites.size)
        return;
    // the flatten has already copied each record's own properties onto every wrapper by reference, and an extracted body is another such copy, so every carrier holding a rewritten key is updated together
    for (const entry of ctx.seen.values()) {
        for (const carrier of [entry.schema, entry.def]) {
            const rewritten = carrier && rewrites.get(carrier.propertyNames);
            if (rewritten)
                carrier.propertyNames = rewritten;
        }
    }
}
const recordProcessor = (schema, ctx, _json, params) => {
    const json = _json;
    const def = schema._zod.def;
    json.type = "object";
    // For looseRecord with regex patterns, use patternProperties. This correctly represents "only validate keys matching the pattern" semantics and composes well with allOf (intersections)
    const keyType = def.keyType;
    const patterns = aggregateChecks(keyType).patterns;
    if (def.mode === "loose" && patterns && patterns.size > 0) {
        // Use patternProperties for looseRecord with regex patterns
        const valueSchema = to_json_schema_processSchema(def.valueType, ctx, {
            ...params,
            path: [...params.path, "patternProperties", "*"],
        });
        json.patternProperties = {};
        for (const pattern of patterns) {
            util_assignProp(json.patternProperties, exactPattern(pattern).source, valueSchema);
        }
    }
    else {
        // Default behavior: use propertyNames + additionalProperties
        if (ctx.target === "draft-07" || ctx.target === "draft-2020-12") {
            json.propertyNames = to_json_schema_processSchema(def.keyType, ctx, {
                ...params,
                path: [...params.path, "propertyNames"],
            });
            let pending = pendingRecords.get(ctx);
            if (!pending) {
                pending = [];
                pendingRecords.set(ctx, pending);
                ctx.deferred.push(() => rewriteKeyNames(ctx));
            }
            pending.push(schema);
        }
        json.additionalProperties = to_json_schema_processSchema(def.valueType, ctx, {
            ...params,
            path: [...params.path, "additionalProperties"],
        });
    }
    // Add required for keys with discrete values (enum, literal, etc.)
    const keyValues = keyType._zod.values;
    // Every key shares one value schema, so an optional-in value makes the whole key set omittable on input. Output keeps them: the exhaustive branch assigns every key, even one whose value came back undefined.
    const omittableOnInput = ctx.io === "input" && inputOptin(def.valueType) !== undefined;
    if (keyValues && !def.partial && !omittableOnInput) {
        const validKeyValues = [...keyValues].filter((v) => typeof v === "string" || typeof v === "number");
        if (validKeyValues.length > 0) {
            json.required = validKeyValues.map(String);
        }
    }
};
const nullableProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    const inner = to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    if (ctx.target === "openapi-3.0") {
        seen.ref = def.innerType;
        json.nullable = true;
    }
    else {
        json.anyOf = [inner, { type: "null" }];
    }
};
const nonoptionalProcessor = (schema, ctx, _json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
};
/** Round-trips a default value through JSON so the emitted schema is guaranteed to be valid JSON.
 * A BigInt has no reliable encoding, so it goes through `unrepresentable` like any other
 * unrepresentable value. Returns a sentinel when the caller must not write a default of its own. */
const UNREPRESENTABLE_DEFAULT = Symbol();
function serializeDefaultValue(value, schema, ctx, json, params) {
    let unrepresentable = false;
    const serialized = JSON.stringify(value, (_, val) => {
        if (typeof val !== "bigint")
            return val;
        unrepresentable = true;
        return null;
    });
    if (!unrepresentable)
        return JSON.parse(serialized);
    handleUnrepresentable(schema, ctx, json, params, "BigInt defaults cannot be represented in JSON Schema");
    return UNREPRESENTABLE_DEFAULT;
}
const defaultProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
    const value = serializeDefaultValue(def.defaultValue, schema, ctx, json, params);
    if (value !== UNREPRESENTABLE_DEFAULT)
        json.default = value;
};
const prefaultProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
    if (ctx.io !== "input")
        return;
    const value = serializeDefaultValue(def.defaultValue, schema, ctx, json, params);
    if (value !== UNREPRESENTABLE_DEFAULT)
        json._prefault = value;
};
const catchProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
    let catchValue;
    try {
        catchValue = def.catchValue(undefined);
    }
    catch {
        handleUnrepresentable(schema, ctx, json, params, "Dynamic catch values are not supported in JSON Schema");
        return;
    }
    json.default = catchValue;
};
const pipeProcessor = (schema, ctx, _json, params) => {
    const def = schema._zod.def;
    const inIsTransform = def.in._zod.traits.has("$ZodTransform");
    const innerType = ctx.io === "input" ? (inIsTransform ? def.out : def.in) : def.out;
    to_json_schema_processSchema(innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = innerType;
};
const readonlyProcessor = (schema, ctx, json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
    json.readOnly = true;
};
const promiseProcessor = (schema, ctx, _json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
};
const optionalProcessor = (schema, ctx, _json, params) => {
    const def = schema._zod.def;
    to_json_schema_processSchema(def.innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = def.innerType;
};
const lazyProcessor = (schema, ctx, _json, params) => {
    const innerType = schema._zod.innerType;
    to_json_schema_processSchema(innerType, ctx, params);
    const seen = ctx.seen.get(schema);
    seen.ref = innerType;
};
// ==================== ALL PROCESSORS ====================
const allProcessors = {
    string: stringProcessor,
    number: numberProcessor,
    boolean: booleanProcessor,
    bigint: bigintProcessor,
    symbol: symbolProcessor,
    null: nullProcessor,
    undefined: undefinedProcessor,
    void: voidProcessor,
    never: neverProcessor,
    any: anyProcessor,
    unknown: unknownProcessor,
    date: dateProcessor,
    enum: enumProcessor,
    literal: literalProcessor,
    nan: nanProcessor,
    template_literal: templateLiteralProcessor,
    file: fileProcessor,
    success: successProcessor,
    custom: customProcessor,
    function: functionProcessor,
    transform: transformProcessor,
    map: mapProcessor,
    set: setProcessor,
    array: arrayProcessor,
    object: objectProcessor,
    union: unionProcessor,
    intersection: intersectionProcessor,
    tuple: tupleProcessor,
    record: recordProcessor,
    nullable: nullableProcessor,
    nonoptional: nonoptionalProcessor,
    default: defaultProcessor,
    prefault: prefaultProcessor,
    catch: catchProcessor,
    pipe: pipeProcessor,
    readonly: readonlyProcessor,
    promise: promiseProcessor,
    optional: optionalProcessor,
    lazy: lazyProcessor,
};
function toJSONSchema(input, params) {
    if ("_idmap" in input) {
        // Registry case
        const registry = input;
        const ctx = initializeContext({ ...params, processors: allProcessors });
        const defs = {};
        // First pass: process all schemas to build the seen map
        for (const entry of registry._idmap.entries()) {
            const [_, schema] = entry;
            processSchema(schema, ctx);
        }
        const schemas = {};
        const external = {
            registry,
            uri: params?.uri,
            defs,
        };
        // Update the context with external configuration
        ctx.external = external;
        // Second pass: emit each schema
        for (const entry of registry._idmap.entries()) {
            const [key, schema] = entry;
            extractDefs(ctx, schema);
            assignProp(schemas, key, finalize(ctx, schema));
        }
        if (Object.keys(defs).length > 0) {
            const defsSegment = ctx.target === "draft-2020-12" ? "$defs" : "definitions";
            schemas.__shared = {
                [defsSegment]: defs,
            };
        }
        return { schemas };
    }
    // Single schema case
    const ctx = initializeContext({ ...params, processors: allProcessors });
    processSchema(input, ctx);
    extractDefs(ctx, input);
    return finalize(ctx, input);
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/locales/en.js

const error = () => {
    const Sizable = {
        string: { unit: "characters", verb: "to have" },
        file: { unit: "bytes", verb: "to have" },
        array: { unit: "items", verb: "to have" },
        set: { unit: "items", verb: "to have" },
        map: { unit: "entries", verb: "to have" },
    };
    function getSizing(origin) {
        return Sizable[origin] ?? null;
    }
    const FormatDictionary = {
        regex: "input",
        email: "email address",
        url: "URL",
        emoji: "emoji",
        uuid: "UUID",
        uuidv4: "UUIDv4",
        uuidv6: "UUIDv6",
        nanoid: "nanoid",
        guid: "GUID",
        cuid: "cuid",
        cuid2: "cuid2",
        ulid: "ULID",
        xid: "XID",
        ksuid: "KSUID",
        datetime: "ISO datetime",
        date: "ISO date",
        time: "ISO time",
        duration: "ISO duration",
        ipv4: "IPv4 address",
        ipv6: "IPv6 address",
        mac: "MAC address",
        cidrv4: "IPv4 range",
        cidrv6: "IPv6 range",
        base64: "base64-encoded string",
        base64url: "base64url-encoded string",
        json_string: "JSON string",
        e164: "E.164 number",
        currency_code: "currency code",
        credit_card: "credit card number",
        iban: "IBAN",
        jwt: "JWT",
        template_literal: "input",
    };
    // type names: missing keys = do not translate (use raw value via ?? fallback)
    const TypeDictionary = {
        // Compatibility: "nan" -> "NaN" for display
        nan: "NaN",
        // All other type names omitted - they fall back to raw values via ?? operator
    };
    function getTypeName(type, input) {
        if (type === "number" && typeof input === "number" && !Number.isFinite(input)) {
            return String(input);
        }
        return TypeDictionary[type] ?? type;
    }
    return (issue) => {
        switch (issue.code) {
            case "invalid_type": {
                const expected = getTypeName(issue.expected);
                const receivedType = parsedType(issue.input);
                const received = getTypeName(receivedType, issue.input);
                return `Invalid input: expected ${expected}, received ${received}`;
            }
            case "invalid_value":
                if (issue.values.length === 1)
                    return `Invalid input: expected ${stringifyPrimitive(issue.values[0])}`;
                return `Invalid option: expected one of ${joinValues(issue.values, "|")}`;
            case "too_big": {
                const adj = issue.exact ? "exactly " : issue.inclusive ? "<=" : "<";
                const sizing = getSizing(issue.origin);
                if (sizing)
                    return `Too big: expected ${issue.origin ?? "value"} to have ${adj}${issue.maximum.toString()} ${sizing.unit ?? "elements"}`;
                return `Too big: expected ${issue.origin ?? "value"} to be ${adj}${issue.maximum.toString()}`;
            }
            case "too_small": {
                const adj = issue.exact ? "exactly " : issue.inclusive ? ">=" : ">";
                const sizing = getSizing(issue.origin);
                if (sizing) {
                    return `Too small: expected ${issue.origin} to have ${adj}${issue.minimum.toString()} ${sizing.unit}`;
                }
                return `Too small: expected ${issue.origin} to be ${adj}${issue.minimum.toString()}`;
            }
            case "invalid_format": {
                const _issue = issue;
                if (_issue.format === "starts_with") {
                    return `Invalid string: must start with "${_issue.prefix}"`;
                }
                if (_issue.format === "ends_with")
                    return `Invalid string: must end with "${_issue.suffix}"`;
                if (_issue.format === "includes")
                    return `Invalid string: must include "${_issue.includes}"`;
                if (_issue.format === "regex")
                    return `Invalid string: must match pattern ${_issue.pattern}`;
                return `Invalid ${FormatDictionary[_issue.format] ?? issue.format}`;
            }
            case "not_multiple_of":
                return `Invalid number: must be a multiple of ${issue.divisor}`;
            case "unrecognized_keys":
                return `Unrecognized key${issue.keys.length > 1 ? "s" : ""}: ${joinValues(issue.keys, ", ")}`;
            case "invalid_key":
                return `Invalid key in ${issue.origin}`;
            case "invalid_union":
                if (issue.options && Array.isArray(issue.options) && issue.options.length > 0) {
                    const opts = issue.options.map((o) => `'${o}'`).join(" | ");
                    return `Invalid discriminator value. Expected ${opts}`;
                }
                if (issue.inclusive === false) {
                    return "Invalid input: more than one option matched";
                }
                return "Invalid input";
            case "invalid_element":
                return `Invalid value in ${issue.origin}`;
            default:
                return `Invalid input`;
        }
    };
};
/* harmony default export */ function en() {
    return {
        localeError: error(),
    };
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/errors.js


/* Computing the message eagerly is expensive (pretty-printed JSON of all
 * issues), so defer it until first read. The accessor functions and
 * descriptors are shared across instances to keep error construction
 * cheap; the computed message is cached on the internals object. The
 * setter preserves plain assignment semantics for consumers that
 * overwrite `message`. */
function _getMessage() {
    const internals = this._zod;
    internals.message ?? (internals.message = JSON.stringify(internals.def, jsonStringifyReplacer, 2));
    return internals.message;
}
function _setMessage(value) {
    this._zod.message = value;
}
const _messageDesc = {
    get: _getMessage,
    set: _setMessage,
    enumerable: true,
    configurable: true,
};
const _issuesDesc = { value: undefined, enumerable: false };
/* Prototypes that already carry the lazy `toString`. Seeded with the
 * intrinsics so that `init` on a foreign object — it accepts any object —
 * can never install an accessor onto a prototype we do not own. */
const _installedToString = /* @__PURE__ */ new WeakSet([Object.prototype, Error.prototype]);
const initializer = (inst, def) => {
    inst.name = "$ZodError";
    // `_zod` is already non-enumerable: $constructor's init defined it with this same descriptor
    _issuesDesc.value = def;
    Object.defineProperty(inst, "issues", _issuesDesc);
    // Clear the shared slot; a retained `value` pins the last error's issues.
    _issuesDesc.value = undefined;
    Object.defineProperty(inst, "message", _messageDesc);
    /* `toString` lives as a non-enumerable lazy getter on the shared
     * prototype; on first access it caches a per-instance closure so
     * detached usage still works. */
    const proto = Object.getPrototypeOf(inst);
    if (!_installedToString.has(proto)) {
        _installedToString.add(proto);
        Object.defineProperty(proto, "toString", {
            configurable: true,
            enumerable: false,
            get() {
                const value = () => this.message;
                Object.defineProperty(this, "toString", { value, configurable: true, writable: true });
                return value;
            },
            set(value) {
                Object.defineProperty(this, "toString", { value, configurable: true, writable: true });
            },
        });
    }
};
const $ZodError = $constructor("$ZodError", initializer);
const $ZodRealError = $constructor("$ZodError", initializer, undefined, {
    Parent: Error,
});
/** Get-or-create `obj[key]` as an own data property. A path segment naming an inherited member
 * ("toString", "constructor") would otherwise read through to the prototype, and assigning
 * "__proto__" would hit the setter instead of creating a key. */
function node(obj, key, make) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) {
        if (key === "__proto__") {
            Object.defineProperty(obj, key, { value: make(), writable: true, enumerable: true, configurable: true });
        }
        else {
            obj[key] = make();
        }
    }
    return obj[key];
}
function flattenError(error, mapper = (issue) => issue.message) {
    const fieldErrors = {};
    const formErrors = [];
    for (const sub of error.issues) {
        if (sub.path.length > 0) {
            node(fieldErrors, sub.path[0], () => []).push(mapper(sub));
        }
        else {
            formErrors.push(mapper(sub));
        }
    }
    return { formErrors, fieldErrors };
}
function formatError(error, mapper = (issue) => issue.message) {
    const fieldErrors = { _errors: [] };
    const processError = (error, path = []) => {
        for (const issue of error.issues) {
            if (issue.code === "invalid_union" && issue.errors.length) {
                issue.errors.map((issues) => processError({ issues }, [...path, ...issue.path]));
            }
            else if (issue.code === "invalid_key") {
                processError({ issues: issue.issues }, [...path, ...issue.path]);
            }
            else if (issue.code === "invalid_element") {
                processError({ issues: issue.issues }, [...path, ...issue.path]);
            }
            else {
                const fullpath = [...path, ...issue.path];
                if (fullpath.length === 0) {
                    fieldErrors._errors.push(mapper(issue));
                }
                else {
                    let curr = fieldErrors;
                    let i = 0;
                    while (i < fullpath.length) {
                        const el = fullpath[i];
                        const terminal = i === fullpath.length - 1;
                        // `_errors` is reserved by this legacy format, so merge a matching path segment into the current node instead of treating its array as a child.
                        if (el === "_errors") {
                            if (terminal)
                                curr._errors.push(mapper(issue));
                            i++;
                            continue;
                        }
                        // A path element may collide with an inherited property name such as
                        // "__proto__" or "constructor". Truthiness checks read the prototype
                        // (so no node is created, then ._errors.push throws), and bracket
                        // assignment of "__proto__" hits the setter instead of creating an
                        // own key. Guard the read with hasOwnProperty and create the node
                        // with defineProperty so any path element becomes a real own key.
                        if (!Object.prototype.hasOwnProperty.call(curr, el)) {
                            Object.defineProperty(curr, el, {
                                value: { _errors: [] },
                                enumerable: true,
                                writable: true,
                                configurable: true,
                            });
                        }
                        const node = curr[el];
                        if (terminal) {
                            node._errors.push(mapper(issue));
                        }
                        curr = node;
                        i++;
                    }
                }
            }
        }
    };
    processError(error);
    return fieldErrors;
}
function treeifyError(error, mapper = (issue) => issue.message) {
    const result = { errors: [] };
    const processError = (error, path = []) => {
        var _a;
        for (const issue of error.issues) {
            if (issue.code === "invalid_union" && issue.errors.length) {
                // regular union error
                issue.errors.map((issues) => processError({ issues }, [...path, ...issue.path]));
            }
            else if (issue.code === "invalid_key") {
                processError({ issues: issue.issues }, [...path, ...issue.path]);
            }
            else if (issue.code === "invalid_element") {
                processError({ issues: issue.issues }, [...path, ...issue.path]);
            }
            else {
                const fullpath = [...path, ...issue.path];
                if (fullpath.length === 0) {
                    result.errors.push(mapper(issue));
                    continue;
                }
                let curr = result;
                let i = 0;
                while (i < fullpath.length) {
                    const el = fullpath[i];
                    const terminal = i === fullpath.length - 1;
                    if (typeof el === "string") {
                        curr.properties ?? (curr.properties = {});
                        // el may collide with an inherited property name ("__proto__",
                        // "constructor", ...); ??= reads the prototype so the node is never
                        // created and curr.errors.push throws. Guard with hasOwnProperty and
                        // create the node with defineProperty so "__proto__" becomes a real
                        // own key rather than invoking the prototype setter.
                        if (!Object.prototype.hasOwnProperty.call(curr.properties, el)) {
                            Object.defineProperty(curr.properties, el, {
                                value: { errors: [] },
                                enumerable: true,
                                writable: true,
                                configurable: true,
                            });
                        }
                        curr = curr.properties[el];
                    }
                    else {
                        curr.items ?? (curr.items = []);
                        (_a = curr.items)[el] ?? (_a[el] = { errors: [] });
                        curr = curr.items[el];
                    }
                    if (terminal) {
                        curr.errors.push(mapper(issue));
                    }
                    i++;
                }
            }
        }
    };
    processError(error);
    return result;
}
/** Format a ZodError as a human-readable string in the following form.
 *
 * From
 *
 * ```ts
 * ZodError {
 *   issues: [
 *     {
 *       expected: 'string',
 *       code: 'invalid_type',
 *       path: [ 'username' ],
 *       message: 'Invalid input: expected string'
 *     },
 *     {
 *       expected: 'number',
 *       code: 'invalid_type',
 *       path: [ 'favoriteNumbers', 1 ],
 *       message: 'Invalid input: expected number'
 *     }
 *   ];
 * }
 * ```
 *
 * to
 *
 * ```
 * username
 *   ✖ Expected number, received string at "username
 * favoriteNumbers[0]
 *   ✖ Invalid input: expected number
 * ```
 */
function toDotPath(_path) {
    const segs = [];
    const path = _path.map((seg) => (typeof seg === "object" ? seg.key : seg));
    for (const seg of path) {
        if (typeof seg === "number")
            segs.push(`[${seg}]`);
        else if (typeof seg === "symbol")
            segs.push(`[${JSON.stringify(String(seg))}]`);
        else if (/[^\w$]/.test(seg))
            segs.push(`[${JSON.stringify(seg)}]`);
        else {
            if (segs.length)
                segs.push(".");
            segs.push(seg);
        }
    }
    return segs.join("");
}
function prettifyError(error) {
    const lines = [];
    // sort by path length
    const issues = [...error.issues].sort((a, b) => (a.path ?? []).length - (b.path ?? []).length);
    // Process each issue
    for (const issue of issues) {
        lines.push(`✖ ${issue.message}`);
        if (issue.path?.length)
            lines.push(`  → at ${toDotPath(issue.path)}`);
    }
    // Convert Map to formatted string
    return lines.join("\n");
}

;// CONCATENATED MODULE: ./node_modules/zod/v4/core/parse.js



// Always both keys, so the `_params` read site in `_parse` sees one object shape rather than two.
function finalizeParams(callee, params) {
    return { callee: params?.callee ?? callee, Err: params?.Err };
}
const _parse = (_Err) => {
    const fn = (schema, value, _ctx, _params) => {
        const ctx = _ctx ? { ..._ctx, async: false } : { async: false };
        const result = schema._zod.run({ value, issues: [] }, ctx);
        if (result instanceof Promise) {
            throw new $ZodAsyncError();
        }
        if (result.issues.length) {
            const e = new (_params?.Err ?? _Err)(result.issues.map((iss) => finalizeIssue(iss, ctx, config())));
            captureStackTrace(e, _params?.callee ?? fn);
            throw e;
        }
        return result.value;
    };
    return fn;
};
const parse_parse = /* @__PURE__*/ _parse($ZodRealError);
const _parseAsync = (_Err) => {
    const fn = async (schema, value, _ctx, params) => {
        const ctx = _ctx ? { ..._ctx, async: true } : { async: true };
        let result = schema._zod.run({ value, issues: [] }, ctx);
        if (result instanceof Promise)
            result = await result;
        if (result.issues.length) {
            const e = new (params?.Err ?? _Err)(result.issues.map((iss) => finalizeIssue(iss, ctx, config())));
            captureStackTrace(e, params?.callee ?? fn);
            throw e;
        }
        return result.value;
    };
    return fn;
};
const parse_parseAsync = /* @__PURE__*/ _parseAsync($ZodRealError);
const _safeParse = (_Err) => (schema, value, _ctx) => {
    const ctx = _ctx ? { ..._ctx, async: false } : { async: false };
    const result = schema._zod.run({ value, issues: [] }, ctx);
    if (result instanceof Promise) {
        throw new $ZodAsyncError();
    }
    return result.issues.length ? failure(_Err, result.issues, ctx) : { success: true, data: result.value };
};
const safeParse = /* @__PURE__*/ _safeParse($ZodRealError);
// the error is built on the first read of `error`: finalizing the issues and constructing the instance is most of a failing parse, and a caller that only branches on `success` never pays it. a getter in the literal keeps this small; the alternative, one shared accessor descriptor plus a hidden state slot, reads ~15% faster but costs ~75 B gzipped in every bundle
function failure(Err, issues, ctx) {
    let error;
    return {
        success: false,
        get error() {
            if (!error) {
                error = new Err(issues.map((iss) => finalizeIssue(iss, ctx, config())));
                // finalizeIssue drops `input`, so the built error holds nothing; keeping the raw issues past this point pins the parsed value for the life of the result
                issues = undefined;
                ctx = undefined;
            }
            return error;
        },
        set error(e) {
            error = e;
            // a replacement makes the getter's branch unreachable, so the captures have to go here too
            issues = undefined;
            ctx = undefined;
        },
    };
}
const _safeParseAsync = (_Err) => async (schema, value, _ctx) => {
    const ctx = _ctx ? { ..._ctx, async: true } : { async: true };
    let result = schema._zod.run({ value, issues: [] }, ctx);
    if (result instanceof Promise)
        result = await result;
    return result.issues.length ? failure(_Err, result.issues, ctx) : { success: true, data: result.value };
};
const safeParseAsync = /* @__PURE__*/ _safeParseAsync($ZodRealError);
// registry mirrors of the compiler's sentinels, so this module never imports the compiler
const COMPILE_INVALID = /* @__PURE__ */ Symbol.for("zod.compile.invalid");
const COMPILE_FALLBACK = /* @__PURE__ */ Symbol.for("zod.compile.fallback");
// Deliberately tiny, because v8 will not inline a body carrying the fallback's object literals and throw. Everything that is not the compiled happy path lives in validateFallback, and that split is worth ~35% on a compiled schema.
const validate = ((schema, value, _ctx) => {
    const validator = schema._zod.bag.validator;
    if (validator !== undefined) {
        if (validator(value) !== COMPILE_INVALID)
            return true;
        // a definite sentinel means the runtime would reject, so skip the re-parse; a ctx can still change the answer
        if (validator.definite === true && _ctx === undefined)
            return false;
    }
    return validateFallback(schema, value, _ctx);
});
function validateFallback(schema, value, _ctx) {
    const ctx = _ctx
        ? { ..._ctx, async: false, abortEarly: true }
        : { async: false, abortEarly: true };
    const fallbackRun = schema._zod.bag.fallbackRun;
    let result;
    if (fallbackRun) {
        // skip nested fast paths on the fallback, so user callbacks keep the at-most-twice bound
        ctx[COMPILE_FALLBACK] = true;
        result = fallbackRun({ value, issues: [] }, ctx);
    }
    else {
        result = schema._zod.run({ value, issues: [] }, ctx);
    }
    if (result instanceof Promise) {
        throw new $ZodAsyncError();
    }
    return result.issues.length === 0;
}
// no fast path: the compiler keeps async parses on the runtime, because a promise-returning callback that is not declared async compiles to a throw
const parse_validateAsync = async (schema, value, _ctx) => {
    const ctx = _ctx
        ? { ..._ctx, async: true, abortEarly: true }
        : { async: true, abortEarly: true };
    let result = schema._zod.run({ value, issues: [] }, ctx);
    if (result instanceof Promise)
        result = await result;
    return result.issues.length === 0;
};
const _encode = (_Err) => {
    const parse = _parse(_Err);
    const fn = (schema, value, _ctx, _params) => {
        const ctx = _ctx ? { ..._ctx, direction: "backward" } : { direction: "backward" };
        return parse(schema, value, ctx, finalizeParams(fn, _params));
    };
    return fn;
};
const encode = /* @__PURE__*/ _encode($ZodRealError);
const _decode = (_Err) => {
    const parse = _parse(_Err);
    const fn = (schema, value, _ctx, _params) => {
        return parse(schema, value, _ctx, finalizeParams(fn, _params));
    };
    return fn;
};
const decode = /* @__PURE__*/ _decode($ZodRealError);
const _encodeAsync = (_Err) => {
    const parseAsync = _parseAsync(_Err);
    const fn = async (schema, value, _ctx, _params) => {
        const ctx = _ctx ? { ..._ctx, direction: "backward" } : { direction: "backward" };
        return (await parseAsync(schema, value, ctx, finalizeParams(fn, _params)));
    };
    return fn;
};
const encodeAsync = /* @__PURE__*/ _encodeAsync($ZodRealError);
const _decodeAsync = (_Err) => {
    const parseAsync = _parseAsync(_Err);
    const fn = async (schema, value, _ctx, _params) => {
        return await parseAsync(schema, value, _ctx, finalizeParams(fn, _params));
    };
    return fn;
};
const decodeAsync = /* @__PURE__*/ _decodeAsync($ZodRealError);
const _safeEncode = (_Err) => (schema, value, _ctx) => {
    const ctx = _ctx ? { ..._ctx, direction: "backward" } : { direction: "backward" };
    return _safeParse(_Err)(schema, value, ctx);
};
const safeEncode = /* @__PURE__*/ _safeEncode($ZodRealError);
const _safeDecode = (_Err) => (schema, value, _ctx) => {
    return _safeParse(_Err)(schema, value, _ctx);
};
const safeDecode = /* @__PURE__*/ _safeDecode($ZodRealError);
const _safeEncodeAsync = (_Err) => async (schema, value, _ctx) => {
    const ctx = _ctx ? { ..._ctx, direction: "backward" } : { direction: "backward" };
    return _safeParseAsync(_Err)(schema, value, ctx);
};
const safeEncodeAsync = /* @__PURE__*/ _safeEncodeAsync($ZodRealError);
const _safeDecodeAsync = (_Err) => async (schema, value, _ctx) => {
    return _safeParseAsync(_Err)(schema, value, _ctx);
};
const safeDecodeAsync = /* @__PURE__*/ _safeDecodeAsync($ZodRealError);

;// CONCATENATED MODULE: ./node_modules/zod/v4/classic/errors.js



/* Prototypes that already carry the lazy helper methods. Seeded with the
 * intrinsics so that `init` on a foreign object — it accepts any object —
 * can never install an accessor onto a prototype we do not own. */
const _installedErrorProtos = /* @__PURE__ */ new WeakSet([Object.prototype, Error.prototype]);
/* Helper methods live as non-enumerable lazy getters on the shared
 * prototype instead of own properties on every instance. On first
 * access the getter allocates the per-instance closure and caches it
 * as a non-enumerable own property, so detached usage still works and
 * the allocation only happens for methods actually touched. */
function _lazyMethod(proto, key, make) {
    Object.defineProperty(proto, key, {
        configurable: true,
        enumerable: false,
        get() {
            const value = make(this);
            Object.defineProperty(this, key, { value, configurable: true, writable: true });
            return value;
        },
        set(value) {
            Object.defineProperty(this, key, { value, configurable: true, writable: true });
        },
    });
}
const errors_initializer = (inst, issues) => {
    $ZodError.init(inst, issues);
    inst.name = "ZodError";
    const proto = Object.getPrototypeOf(inst);
    if (_installedErrorProtos.has(proto))
        return;
    _installedErrorProtos.add(proto);
    _lazyMethod(proto, "format", (self) => (mapper) => formatError(self, mapper));
    _lazyMethod(proto, "flatten", (self) => (mapper) => flattenError(self, mapper));
    _lazyMethod(proto, "addIssue", (self) => (issue) => {
        self.issues.push(issue);
        self.message = JSON.stringify(self.issues, jsonStringifyReplacer, 2);
    });
    _lazyMethod(proto, "addIssues", (self) => (issues) => {
        self.issues.push(...issues);
        self.message = JSON.stringify(self.issues, jsonStringifyReplacer, 2);
    });
    Object.defineProperty(proto, "isEmpty", {
        configurable: true,
        enumerable: false,
        get() {
            return this.issues.length === 0;
        },
    });
};
const ZodError = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodError", errors_initializer)));
const ZodRealError = /*@__PURE__*/ $constructor("ZodError", errors_initializer, undefined, {
    Parent: Error,
});
// /** @deprecated Use `z.core.$ZodErrorMapCtx` instead. */
// export type ErrorMapCtx = core.$ZodErrorMapCtx;

;// CONCATENATED MODULE: ./node_modules/zod/v4/classic/parse.js


const classic_parse_parse = /* @__PURE__ */ _parse(ZodRealError);
const classic_parse_parseAsync = /* @__PURE__ */ _parseAsync(ZodRealError);
const parse_safeParse = /* @__PURE__ */ _safeParse(ZodRealError);
const parse_safeParseAsync = /* @__PURE__ */ _safeParseAsync(ZodRealError);

// Codec functions
const parse_encode = /* @__PURE__ */ _encode(ZodRealError);
const parse_decode = /* @__PURE__ */ _decode(ZodRealError);
const parse_encodeAsync = /* @__PURE__ */ _encodeAsync(ZodRealError);
const parse_decodeAsync = /* @__PURE__ */ _decodeAsync(ZodRealError);
const parse_safeEncode = /* @__PURE__ */ _safeEncode(ZodRealError);
const parse_safeDecode = /* @__PURE__ */ _safeDecode(ZodRealError);
const parse_safeEncodeAsync = /* @__PURE__ */ _safeEncodeAsync(ZodRealError);
const parse_safeDecodeAsync = /* @__PURE__ */ _safeDecodeAsync(ZodRealError);

;// CONCATENATED MODULE: ./node_modules/zod/v4/classic/schemas.js








// Register English as the default locale on first ZodType construction. Hooked into the `ZodType` `$constructor` (rather than a top-level `config(en())` in `external.ts`) so bundlers honoring `sideEffects: false` can't tree-shake it out — see #5953, #5725. An explicit `z.config(z.locales.xx())` call wins regardless of order, since this only sets the default when none is present.
function _ensureDefaultLocale() {
    if (!globalConfig.localeError)
        config(en());
}
// the default memoizer is read by the core container init, which runs before `ZodType.init`, so each container calls this first
function _ensureDefaultMemoizer() {
    if (!globalConfig.memoizer)
        config({ memoizer: memoizer() });
}
const ZodType = /*@__PURE__*/ $constructor("ZodType", (inst, def) => {
    _ensureDefaultLocale();
    $ZodType.init(inst, def);
    inst.def = def;
    inst.type = def.type;
    return inst;
}, {
    check(...chks) {
        const def = this.def;
        return this.clone(mergeDefs(def, {
            checks: [
                ...(def.checks ?? []),
                ...chks.map((ch) => typeof ch === "function" ? { _zod: { check: ch, def: { check: "custom" }, onattach: [] } } : ch),
            ],
        }), { parent: true });
    },
    with(...chks) {
        return this.check(...chks);
    },
    clone(def, params) {
        return clone(this, def, params);
    },
    brand() {
        return this;
    },
    register(reg, meta) {
        reg.add(this, meta);
        return this;
    },
    refine(check, params) {
        return this.check(refine(check, params));
    },
    superRefine(refinement, params) {
        return this.check(superRefine(refinement, params));
    },
    overwrite(fn) {
        return this.check(_overwrite(fn));
    },
    optional() {
        return optional(this);
    },
    exactOptional() {
        return exactOptional(this);
    },
    nullable() {
        return nullable(this);
    },
    nullish() {
        return optional(nullable(this));
    },
    nonoptional(params) {
        return nonoptional(this, params);
    },
    array() {
        return array(this);
    },
    or(arg) {
        return union([this, arg]);
    },
    and(arg) {
        return intersection(this, arg);
    },
    transform(tx) {
        return pipe(this, transform(tx));
    },
    default(d) {
        return schemas_default(this, d);
    },
    prefault(d) {
        return prefault(this, d);
    },
    catch(params) {
        return schemas_catch(this, params);
    },
    pipe(target) {
        return pipe(this, target);
    },
    readonly() {
        return readonly(this);
    },
    describe(description) {
        const cl = this.clone();
        globalRegistry.add(cl, { description });
        return cl;
    },
    meta(...args) {
        // overloaded: meta() returns the registered metadata, meta(data) returns a clone with `data` registered. The mapped type picks up the second overload, so we accept variadic any-args and return `any` to satisfy both at runtime.
        if (args.length === 0)
            return globalRegistry.get(this);
        const cl = this.clone();
        globalRegistry.add(cl, args[0]);
        return cl;
    },
    isOptional() {
        return this.safeParse(undefined).success;
    },
    isNullable() {
        return this.safeParse(null).success;
    },
    apply(fn, ...args) {
        return args.length === 0 ? fn(this) : fn(this, ...args);
    },
    // Overrides core's `~standard` to add `jsonSchema`. Must stay a prototype entry: redefining it per instance demotes instances to dictionary mode.
    get "~standard"() {
        return hide(this, "~standard", {
            ...standardProps(this),
            jsonSchema: {
                input: createStandardJSONSchemaMethod(this, "input"),
                output: createStandardJSONSchemaMethod(this, "output"),
            },
        });
    },
    set "~standard"(value) {
        own(this, "~standard", value);
    },
    parse: function _parse(data, params) {
        return classic_parse_parse(this, data, params, { callee: _parse });
    },
    parseAsync: async function _parseAsync(data, params) {
        return await classic_parse_parseAsync(this, data, params, { callee: _parseAsync });
    },
    safeParse(data, params) {
        return parse_safeParse(this, data, params);
    },
    async safeParseAsync(data, params) {
        return parse_safeParseAsync(this, data, params);
    },
    // `spa` is an alias: same function object as `safeParseAsync`, as before.
    get spa() {
        return this?.safeParseAsync;
    },
    set spa(value) {
        own(this, "spa", value);
    },
    validate(data, params) {
        return validate(this, data, params);
    },
    validateAsync(data, params) {
        return parse_validateAsync(this, data, params);
    },
    encode: function _encode(data, params) {
        return parse_encode(this, data, params, { callee: _encode });
    },
    decode: function _decode(data, params) {
        return parse_decode(this, data, params, { callee: _decode });
    },
    encodeAsync: async function _encodeAsync(data, params) {
        return await parse_encodeAsync(this, data, params, { callee: _encodeAsync });
    },
    decodeAsync: async function _decodeAsync(data, params) {
        return await parse_decodeAsync(this, data, params, { callee: _decodeAsync });
    },
    safeEncode(data, params) {
        return parse_safeEncode(this, data, params);
    },
    safeDecode(data, params) {
        return parse_safeDecode(this, data, params);
    },
    async safeEncodeAsync(data, params) {
        return parse_safeEncodeAsync(this, data, params);
    },
    async safeDecodeAsync(data, params) {
        return parse_safeDecodeAsync(this, data, params);
    },
    toJSONSchema(params) {
        return createToJSONSchemaMethod(this, {})(params);
    },
    // Reads through to the registry on every access, so it must not cache.
    get description() {
        return globalRegistry.get(this)?.description;
    },
    // No setter: `schema._def = x` throws, as it did when `_def` was a non-writable own property.
    get _def() {
        return this._zod.def;
    },
});
/** @internal */
const _ZodString = /*@__PURE__*/ $constructor("_ZodString", (inst, def) => {
    $ZodString.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => stringProcessor(inst, ctx, json, params);
}, 
/*@__PURE__*/ derived({
    format: (inst) => aggregateChecks(inst).format ?? null,
    minLength: (inst) => aggregateChecks(inst).minimum ?? null,
    maxLength: (inst) => aggregateChecks(inst).maximum ?? null,
}, {
    regex(...args) {
        return this.check(_regex(...args));
    },
    includes(...args) {
        return this.check(_includes(...args));
    },
    startsWith(...args) {
        return this.check(_startsWith(...args));
    },
    endsWith(...args) {
        return this.check(_endsWith(...args));
    },
    min(...args) {
        return this.check(_minLength(...args));
    },
    max(...args) {
        return this.check(_maxLength(...args));
    },
    length(...args) {
        return this.check(_length(...args));
    },
    nonempty(...args) {
        return this.check(_minLength(1, ...args));
    },
    lowercase(params) {
        return this.check(_lowercase(params));
    },
    uppercase(params) {
        return this.check(_uppercase(params));
    },
    trim() {
        return this.check(_trim());
    },
    normalize(...args) {
        return this.check(_normalize(...args));
    },
    toLowerCase() {
        return this.check(_toLowerCase());
    },
    toUpperCase() {
        return this.check(_toUpperCase());
    },
    slugify() {
        return this.check(_slugify());
    },
}));
const ZodString = /*@__PURE__*/ $constructor("ZodString", (inst, def) => {
    $ZodString.init(inst, def);
    _ZodString.init(inst, def);
}, {
    email(params) {
        return this.check(_email(ZodEmail, params));
    },
    url(params) {
        return this.check(_url(ZodURL, params));
    },
    jwt(params) {
        return this.check(_jwt(ZodJWT, params));
    },
    emoji(params) {
        return this.check(api_emoji(ZodEmoji, params));
    },
    guid(params) {
        return this.check(_guid(ZodGUID, params));
    },
    uuid(params) {
        return this.check(_uuid(ZodUUID, params));
    },
    uuidv4(params) {
        return this.check(_uuidv4(ZodUUID, params));
    },
    uuidv6(params) {
        return this.check(_uuidv6(ZodUUID, params));
    },
    uuidv7(params) {
        return this.check(_uuidv7(ZodUUID, params));
    },
    nanoid(params) {
        return this.check(_nanoid(ZodNanoID, params));
    },
    cuid(params) {
        return this.check(_cuid(ZodCUID, params));
    },
    cuid2(params) {
        return this.check(_cuid2(ZodCUID2, params));
    },
    ulid(params) {
        return this.check(_ulid(ZodULID, params));
    },
    base64(params) {
        return this.check(_base64(ZodBase64, params));
    },
    base64url(params) {
        return this.check(_base64url(ZodBase64URL, params));
    },
    xid(params) {
        return this.check(_xid(ZodXID, params));
    },
    ksuid(params) {
        return this.check(_ksuid(ZodKSUID, params));
    },
    ipv4(params) {
        return this.check(_ipv4(ZodIPv4, params));
    },
    ipv6(params) {
        return this.check(_ipv6(ZodIPv6, params));
    },
    cidrv4(params) {
        return this.check(_cidrv4(ZodCIDRv4, params));
    },
    cidrv6(params) {
        return this.check(_cidrv6(ZodCIDRv6, params));
    },
    e164(params) {
        return this.check(_e164(ZodE164, params));
    },
    datetime(params) {
        return this.check(_isoDateTime(ZodISODateTime, params));
    },
    date(params) {
        return this.check(_isoDate(ZodISODate, params));
    },
    time(params) {
        return this.check(_isoTime(ZodISOTime, params));
    },
    duration(params) {
        return this.check(_isoDuration(ZodISODuration, params));
    },
});
function schemas_string(params) {
    return _string(ZodString, params);
}
const ZodStringFormat = /*@__PURE__*/ $constructor("ZodStringFormat", (inst, def) => {
    $ZodStringFormat.init(inst, def);
    _ZodString.init(inst, def);
});
const ZodISODateTime = /*@__PURE__*/ $constructor("ZodISODateTime", (inst, def) => {
    $ZodISODateTime.init(inst, def);
    ZodStringFormat.init(inst, def);
});
const ZodISODate = /*@__PURE__*/ $constructor("ZodISODate", (inst, def) => {
    $ZodISODate.init(inst, def);
    ZodStringFormat.init(inst, def);
});
const ZodISOTime = /*@__PURE__*/ $constructor("ZodISOTime", (inst, def) => {
    $ZodISOTime.init(inst, def);
    ZodStringFormat.init(inst, def);
});
const ZodISODuration = /*@__PURE__*/ $constructor("ZodISODuration", (inst, def) => {
    $ZodISODuration.init(inst, def);
    ZodStringFormat.init(inst, def);
});
const ZodEmail = /*@__PURE__*/ $constructor("ZodEmail", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodEmail.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_email(params) {
    return core._email(ZodEmail, params);
}
const ZodGUID = /*@__PURE__*/ $constructor("ZodGUID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodGUID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_guid(params) {
    return core._guid(ZodGUID, params);
}
const ZodUUID = /*@__PURE__*/ $constructor("ZodUUID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodUUID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_uuid(params) {
    return core._uuid(ZodUUID, params);
}
function uuidv4(params) {
    return core._uuidv4(ZodUUID, params);
}
// ZodUUIDv6
function uuidv6(params) {
    return core._uuidv6(ZodUUID, params);
}
// ZodUUIDv7
function uuidv7(params) {
    return core._uuidv7(ZodUUID, params);
}
const ZodURL = /*@__PURE__*/ $constructor("ZodURL", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodURL.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function url(params) {
    return core._url(ZodURL, params);
}
function httpUrl(params) {
    return core._url(ZodURL, {
        protocol: regexes.httpProtocol,
        hostname: regexes.domain,
        ...util.normalizeParams(params),
    });
}
const ZodEmoji = /*@__PURE__*/ $constructor("ZodEmoji", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodEmoji.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_emoji(params) {
    return core._emoji(ZodEmoji, params);
}
const ZodNanoID = /*@__PURE__*/ $constructor("ZodNanoID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodNanoID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_nanoid(params) {
    return core._nanoid(ZodNanoID, params);
}
/**
 * @deprecated CUID v1 is deprecated by its authors due to information leakage
 * (timestamps embedded in the id). Use {@link ZodCUID2} instead.
 * See https://github.com/paralleldrive/cuid.
 */
const ZodCUID = /*@__PURE__*/ $constructor("ZodCUID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodCUID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
/**
 * Validates a CUID v1 string.
 *
 * @deprecated CUID v1 is deprecated by its authors due to information leakage
 * (timestamps embedded in the id). Use {@link cuid2 | `z.cuid2()`} instead.
 * See https://github.com/paralleldrive/cuid.
 */
function schemas_cuid(params) {
    return core._cuid(ZodCUID, params);
}
const ZodCUID2 = /*@__PURE__*/ $constructor("ZodCUID2", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodCUID2.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_cuid2(params) {
    return core._cuid2(ZodCUID2, params);
}
const ZodULID = /*@__PURE__*/ $constructor("ZodULID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodULID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_ulid(params) {
    return core._ulid(ZodULID, params);
}
const ZodXID = /*@__PURE__*/ $constructor("ZodXID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodXID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_xid(params) {
    return core._xid(ZodXID, params);
}
const ZodKSUID = /*@__PURE__*/ $constructor("ZodKSUID", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodKSUID.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_ksuid(params) {
    return core._ksuid(ZodKSUID, params);
}
const ZodIPv4 = /*@__PURE__*/ $constructor("ZodIPv4", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodIPv4.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_ipv4(params) {
    return core._ipv4(ZodIPv4, params);
}
const ZodMAC = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodMAC", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    core.$ZodMAC.init(inst, def);
    ZodStringFormat.init(inst, def);
})));
function schemas_mac(params) {
    return core._mac(ZodMAC, params);
}
const ZodIPv6 = /*@__PURE__*/ $constructor("ZodIPv6", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodIPv6.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_ipv6(params) {
    return core._ipv6(ZodIPv6, params);
}
const ZodCIDRv4 = /*@__PURE__*/ $constructor("ZodCIDRv4", (inst, def) => {
    $ZodCIDRv4.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_cidrv4(params) {
    return core._cidrv4(ZodCIDRv4, params);
}
const ZodCIDRv6 = /*@__PURE__*/ $constructor("ZodCIDRv6", (inst, def) => {
    $ZodCIDRv6.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_cidrv6(params) {
    return core._cidrv6(ZodCIDRv6, params);
}
const ZodBase64 = /*@__PURE__*/ $constructor("ZodBase64", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodBase64.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_base64(params) {
    return core._base64(ZodBase64, params);
}
const ZodBase64URL = /*@__PURE__*/ $constructor("ZodBase64URL", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodBase64URL.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_base64url(params) {
    return core._base64url(ZodBase64URL, params);
}
const ZodE164 = /*@__PURE__*/ $constructor("ZodE164", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodE164.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function schemas_e164(params) {
    return core._e164(ZodE164, params);
}
const ZodCreditCard = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodCreditCard", (inst, def) => {
    core.$ZodCreditCard.init(inst, def);
    ZodStringFormat.init(inst, def);
})));
function schemas_creditCard(params) {
    return core._creditCard(ZodCreditCard, params);
}
const ZodIBAN = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodIBAN", (inst, def) => {
    core.$ZodIBAN.init(inst, def);
    ZodStringFormat.init(inst, def);
})));
function schemas_iban(params) {
    return core._iban(ZodIBAN, params);
}
const ZodJWT = /*@__PURE__*/ $constructor("ZodJWT", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    $ZodJWT.init(inst, def);
    ZodStringFormat.init(inst, def);
});
function jwt(params) {
    return core._jwt(ZodJWT, params);
}
const ZodCustomStringFormat = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodCustomStringFormat", (inst, def) => {
    // ZodStringFormat.init(inst, def);
    core.$ZodCustomStringFormat.init(inst, def);
    ZodStringFormat.init(inst, def);
})));
function stringFormat(format, fnOrRegex, _params = {}) {
    return core._stringFormat(ZodCustomStringFormat, format, fnOrRegex, _params);
}
function schemas_hostname(_params) {
    return core._stringFormat(ZodCustomStringFormat, "hostname", regexes.hostname, _params);
}
function schemas_hex(_params) {
    return core._stringFormat(ZodCustomStringFormat, "hex", regexes.hex, _params);
}
function schemas_currencyCode(_params) {
    return core._stringFormat(ZodCustomStringFormat, "currency_code", regexes.currencyCode, _params);
}
function hash(alg, params) {
    const enc = params?.enc ?? "hex";
    const format = `${alg}_${enc}`;
    const regex = core.regexes[format];
    if (!regex)
        throw new Error(`Unrecognized hash format: ${format}`);
    return core._stringFormat(ZodCustomStringFormat, format, regex, params);
}
const ZodNumber = /*@__PURE__*/ $constructor("ZodNumber", (inst, def) => {
    $ZodNumber.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => numberProcessor(inst, ctx, json, params);
    inst.isFinite = true;
}, 
/*@__PURE__*/ derived({
    minValue: (inst) => {
        const { minimum, exclusiveMinimum } = aggregateChecks(inst);
        return Math.max(minimum ?? Number.NEGATIVE_INFINITY, exclusiveMinimum ?? Number.NEGATIVE_INFINITY);
    },
    maxValue: (inst) => {
        const { maximum, exclusiveMaximum } = aggregateChecks(inst);
        return Math.min(maximum ?? Number.POSITIVE_INFINITY, exclusiveMaximum ?? Number.POSITIVE_INFINITY);
    },
    isInt: (inst) => {
        const { isInt, multipleOf } = aggregateChecks(inst);
        return !!isInt || !!multipleOf?.some(Number.isSafeInteger);
    },
    format: (inst) => aggregateChecks(inst).format ?? null,
}, {
    gt(value, params) {
        return this.check(_gt(value, params));
    },
    gte(value, params) {
        return this.check(_gte(value, params));
    },
    min(value, params) {
        return this.check(_gte(value, params));
    },
    lt(value, params) {
        return this.check(_lt(value, params));
    },
    lte(value, params) {
        return this.check(_lte(value, params));
    },
    max(value, params) {
        return this.check(_lte(value, params));
    },
    int(params) {
        return this.check(schemas_int(params));
    },
    safe(params) {
        return this.check(schemas_int(params));
    },
    positive(params) {
        return this.check(_gt(0, params));
    },
    nonnegative(params) {
        return this.check(_gte(0, params));
    },
    negative(params) {
        return this.check(_lt(0, params));
    },
    nonpositive(params) {
        return this.check(_lte(0, params));
    },
    multipleOf(value, params) {
        return this.check(_multipleOf(value, params));
    },
    step(value, params) {
        return this.check(_multipleOf(value, params));
    },
    finite() {
        return this;
    },
}));
function schemas_number(params) {
    return _number(ZodNumber, params);
}
const ZodNumberFormat = /*@__PURE__*/ $constructor("ZodNumberFormat", (inst, def) => {
    $ZodNumberFormat.init(inst, def);
    ZodNumber.init(inst, def);
});
function schemas_int(params) {
    return _int(ZodNumberFormat, params);
}
function float32(params) {
    return core._float32(ZodNumberFormat, params);
}
function float64(params) {
    return core._float64(ZodNumberFormat, params);
}
function int32(params) {
    return core._int32(ZodNumberFormat, params);
}
function uint32(params) {
    return core._uint32(ZodNumberFormat, params);
}
const ZodBoolean = /*@__PURE__*/ $constructor("ZodBoolean", (inst, def) => {
    $ZodBoolean.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => booleanProcessor(inst, ctx, json, params);
});
function schemas_boolean(params) {
    return _boolean(ZodBoolean, params);
}
const ZodBigInt = /*@__PURE__*/ $constructor("ZodBigInt", (inst, def) => {
    $ZodBigInt.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => bigintProcessor(inst, ctx, json, params);
}, 
/*@__PURE__*/ derived({
    minValue: (inst) => aggregateChecks(inst).minimum ?? null,
    maxValue: (inst) => aggregateChecks(inst).maximum ?? null,
    format: (inst) => aggregateChecks(inst).format ?? null,
}, {
    gte(value, params) {
        return this.check(_gte(value, params));
    },
    min(value, params) {
        return this.check(_gte(value, params));
    },
    gt(value, params) {
        return this.check(_gt(value, params));
    },
    lt(value, params) {
        return this.check(_lt(value, params));
    },
    lte(value, params) {
        return this.check(_lte(value, params));
    },
    max(value, params) {
        return this.check(_lte(value, params));
    },
    positive(params) {
        return this.check(_gt(BigInt(0), params));
    },
    negative(params) {
        return this.check(_lt(BigInt(0), params));
    },
    nonpositive(params) {
        return this.check(_lte(BigInt(0), params));
    },
    nonnegative(params) {
        return this.check(_gte(BigInt(0), params));
    },
    multipleOf(value, params) {
        return this.check(_multipleOf(value, params));
    },
}));
function schemas_bigint(params) {
    return core._bigint(ZodBigInt, params);
}
const ZodBigIntFormat = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodBigIntFormat", (inst, def) => {
    core.$ZodBigIntFormat.init(inst, def);
    ZodBigInt.init(inst, def);
})));
function int64(params) {
    return core._int64(ZodBigIntFormat, params);
}
function uint64(params) {
    return core._uint64(ZodBigIntFormat, params);
}
const ZodSymbol = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodSymbol", (inst, def) => {
    core.$ZodSymbol.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.symbolProcessor(inst, ctx, json, params);
})));
function symbol(params) {
    return core._symbol(ZodSymbol, params);
}
const ZodUndefined = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodUndefined", (inst, def) => {
    core.$ZodUndefined.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.undefinedProcessor(inst, ctx, json, params);
})));
function schemas_undefined(params) {
    return core._undefined(ZodUndefined, params);
}

const ZodNull = /*@__PURE__*/ $constructor("ZodNull", (inst, def) => {
    $ZodNull.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => nullProcessor(inst, ctx, json, params);
});
function schemas_null(params) {
    return api_null(ZodNull, params);
}

const ZodAny = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodAny", (inst, def) => {
    core.$ZodAny.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.anyProcessor(inst, ctx, json, params);
})));
function any() {
    return core._any(ZodAny);
}
const ZodUnknown = /*@__PURE__*/ $constructor("ZodUnknown", (inst, def) => {
    $ZodUnknown.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => unknownProcessor(inst, ctx, json, params);
});
function unknown() {
    return _unknown(ZodUnknown);
}
const ZodNever = /*@__PURE__*/ $constructor("ZodNever", (inst, def) => {
    $ZodNever.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => neverProcessor(inst, ctx, json, params);
});
function never(params) {
    return _never(ZodNever, params);
}
const ZodVoid = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodVoid", (inst, def) => {
    core.$ZodVoid.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.voidProcessor(inst, ctx, json, params);
})));
function schemas_void(params) {
    return core._void(ZodVoid, params);
}

const ZodDate = /*@__PURE__*/ $constructor("ZodDate", (inst, def) => {
    $ZodDate.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => dateProcessor(inst, ctx, json, params);
    inst.min = (value, params) => inst.check(_gte(value, params));
    inst.max = (value, params) => inst.check(_lte(value, params));
}, 
/*@__PURE__*/ derived({
    minDate: (inst) => {
        const { minimum } = aggregateChecks(inst);
        return minimum ? new Date(minimum) : null;
    },
    maxDate: (inst) => {
        const { maximum } = aggregateChecks(inst);
        return maximum ? new Date(maximum) : null;
    },
}, {}));
function schemas_date(params) {
    return core._date(ZodDate, params);
}
const ZodArray = /*@__PURE__*/ $constructor("ZodArray", (inst, def) => {
    _ensureDefaultMemoizer();
    $ZodArray.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => arrayProcessor(inst, ctx, json, params);
    inst.element = def.element;
}, {
    min(n, params) {
        return this.check(_minLength(n, params));
    },
    nonempty(params) {
        return this.check(_minLength(1, params));
    },
    max(n, params) {
        return this.check(_maxLength(n, params));
    },
    length(n, params) {
        return this.check(_length(n, params));
    },
    unwrap() {
        return this.element;
    },
});
function array(element, params) {
    return _array(ZodArray, element, params);
}
// .keyof
function keyof(schema) {
    const shape = schema._zod.def.shape;
    return schemas_enum(Object.keys(shape));
}
const ZodObject = /*@__PURE__*/ $constructor("ZodObject", (inst, def) => {
    _ensureDefaultMemoizer();
    $ZodObjectJIT.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => objectProcessor(inst, ctx, json, params);
    installLazyProp(inst, "shape", (self) => self._zod.def.shape, false);
}, {
    keyof() {
        return schemas_enum(Object.keys(this._zod.def.shape));
    },
    catchall(catchall) {
        // `mergeDefs` rather than a spread: spreading reads `shape`, and resolving it can mint a whole fresh subtree
        return this.clone(mergeDefs(this._zod.def, { catchall: catchall }));
    },
    passthrough() {
        return this.clone(mergeDefs(this._zod.def, { catchall: unknown() }));
    },
    loose() {
        return this.clone(mergeDefs(this._zod.def, { catchall: unknown() }));
    },
    strict() {
        return this.clone(mergeDefs(this._zod.def, { catchall: never() }));
    },
    strip() {
        return this.clone(mergeDefs(this._zod.def, { catchall: undefined }));
    },
    extend(incoming) {
        return extend(this, incoming);
    },
    safeExtend(incoming) {
        return safeExtend(this, incoming);
    },
    merge(other) {
        return merge(this, other);
    },
    pick(mask) {
        return pick(this, mask);
    },
    omit(mask) {
        return omit(this, mask);
    },
    partial(...args) {
        return partial(ZodOptional, this, args[0]);
    },
    exactPartial(...args) {
        return partial(ZodExactOptional, this, args[0], "exactPartial");
    },
    required(...args) {
        return required(ZodNonOptional, this, args[0]);
    },
});
function object(shape, params) {
    const def = {
        type: "object",
        shape: shape ?? {},
        ...normalizeParams(params),
    };
    return new ZodObject(def);
}
// strictObject
function strictObject(shape, params) {
    return new ZodObject({
        type: "object",
        shape,
        catchall: never(),
        ...util.normalizeParams(params),
    });
}
// looseObject
function looseObject(shape, params) {
    return new ZodObject({
        type: "object",
        shape,
        catchall: unknown(),
        ...util.normalizeParams(params),
    });
}
const ZodUnion = /*@__PURE__*/ $constructor("ZodUnion", (inst, def) => {
    $ZodUnion.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => unionProcessor(inst, ctx, json, params);
    inst.options = def.options;
});
function union(options, params) {
    return new ZodUnion({
        type: "union",
        options: options,
        ...normalizeParams(params),
    });
}
const ZodXor = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodXor", (inst, def) => {
    ZodUnion.init(inst, def);
    core.$ZodXor.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.unionProcessor(inst, ctx, json, params);
    inst.options = def.options;
})));
/** Creates an exclusive union (XOR) where exactly one option must match.
 * Unlike regular unions that succeed when any option matches, xor fails if
 * zero or more than one option matches the input. */
function xor(options, params) {
    return new ZodXor({
        type: "union",
        options: options,
        inclusive: false,
        ...util.normalizeParams(params),
    });
}
const ZodDiscriminatedUnion = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodDiscriminatedUnion", (inst, def) => {
    ZodUnion.init(inst, def);
    core.$ZodDiscriminatedUnion.init(inst, def);
})));
function discriminatedUnion(discriminator, options, params) {
    // const [options, params] = args;
    return new ZodDiscriminatedUnion({
        type: "union",
        options: options,
        discriminator,
        ...util.normalizeParams(params),
    });
}
const ZodIntersection = /*@__PURE__*/ $constructor("ZodIntersection", (inst, def) => {
    $ZodIntersection.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => intersectionProcessor(inst, ctx, json, params);
});
function intersection(left, right) {
    return new ZodIntersection({
        type: "intersection",
        left: left,
        right: right,
    });
}
const ZodTuple = /*@__PURE__*/ $constructor("ZodTuple", (inst, def) => {
    _ensureDefaultMemoizer();
    $ZodTuple.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => tupleProcessor(inst, ctx, json, params);
}, {
    rest(rest) {
        return this.clone({
            ...this._zod.def,
            rest: rest,
        });
    },
    partial() {
        const def = this._zod.def;
        // a refinement was authored against the full arity; partialing would run it on a shorter array
        if (def.checks?.length)
            throw new Error(".partial() cannot be used on tuple schemas containing refinements");
        return this.clone({
            ...def,
            items: def.items.map((item) => new ZodOptional({ type: "optional", innerType: item })),
        });
    },
});
function tuple(items, _paramsOrRest, _params) {
    const hasRest = _paramsOrRest instanceof core.$ZodType;
    const params = hasRest ? _params : _paramsOrRest;
    const rest = hasRest ? _paramsOrRest : null;
    return new ZodTuple({
        type: "tuple",
        items: items,
        rest,
        ...util.normalizeParams(params),
    });
}
const ZodRecord = /*@__PURE__*/ $constructor("ZodRecord", (inst, def) => {
    _ensureDefaultMemoizer();
    $ZodRecord.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => recordProcessor(inst, ctx, json, params);
    inst.keyType = def.keyType;
    inst.valueType = def.valueType;
});
function record(keyType, valueType, params) {
    // v3-compat: z.record(valueType, params?) — defaults keyType to z.string()
    if (!valueType || !valueType._zod) {
        return new ZodRecord({
            type: "record",
            keyType: schemas_string(),
            valueType: keyType,
            ...normalizeParams(valueType),
        });
    }
    return new ZodRecord({
        type: "record",
        keyType,
        valueType: valueType,
        ...normalizeParams(params),
    });
}
// type alksjf = core.output<core.$ZodRecordKey>;
function partialRecord(keyType, valueType, params) {
    return new ZodRecord({
        type: "record",
        keyType,
        valueType: valueType,
        ...normalizeParams(params),
        partial: true,
    });
}
function looseRecord(keyType, valueType, params) {
    return new ZodRecord({
        type: "record",
        keyType,
        valueType: valueType,
        mode: "loose",
        ...util.normalizeParams(params),
    });
}
const ZodMap = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodMap", (inst, def) => {
    _ensureDefaultMemoizer();
    core.$ZodMap.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.mapProcessor(inst, ctx, json, params);
    inst.keyType = def.keyType;
    inst.valueType = def.valueType;
    inst.min = (...args) => inst.check(core._minSize(...args));
    inst.nonempty = (params) => inst.check(core._minSize(1, params));
    inst.max = (...args) => inst.check(core._maxSize(...args));
    inst.size = (...args) => inst.check(core._size(...args));
})));
function map(keyType, valueType, params) {
    return new ZodMap({
        type: "map",
        keyType: keyType,
        valueType: valueType,
        ...util.normalizeParams(params),
    });
}
const ZodSet = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodSet", (inst, def) => {
    _ensureDefaultMemoizer();
    core.$ZodSet.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.setProcessor(inst, ctx, json, params);
    inst.min = (...args) => inst.check(core._minSize(...args));
    inst.nonempty = (params) => inst.check(core._minSize(1, params));
    inst.max = (...args) => inst.check(core._maxSize(...args));
    inst.size = (...args) => inst.check(core._size(...args));
})));
function set(valueType, params) {
    return new ZodSet({
        type: "set",
        valueType: valueType,
        ...util.normalizeParams(params),
    });
}
const ZodEnum = /*@__PURE__*/ $constructor("ZodEnum", (inst, def) => {
    $ZodEnum.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => enumProcessor(inst, ctx, json, params);
    inst.enum = def.entries;
    // reuse the parsed value set so a numeric TS enum's reverse-mapping keys stay out
    inst.options = [...inst._zod.values];
    const keys = new Set(Object.keys(def.entries));
    inst.extract = (values, params) => {
        const newEntries = {};
        for (const value of values) {
            if (keys.has(value)) {
                newEntries[value] = def.entries[value];
            }
            else
                throw new Error(`Key ${value} not found in enum`);
        }
        return new ZodEnum({
            ...def,
            checks: [],
            ...normalizeParams(params),
            entries: newEntries,
        });
    };
    inst.exclude = (values, params) => {
        const newEntries = { ...def.entries };
        for (const value of values) {
            if (keys.has(value)) {
                delete newEntries[value];
            }
            else
                throw new Error(`Key ${value} not found in enum`);
        }
        return new ZodEnum({
            ...def,
            checks: [],
            ...normalizeParams(params),
            entries: newEntries,
        });
    };
});
function schemas_enum(values, params) {
    const entries = Array.isArray(values) ? Object.fromEntries(values.map((v) => [v, v])) : values;
    return new ZodEnum({
        type: "enum",
        entries,
        ...normalizeParams(params),
    });
}

/** @deprecated This API has been merged into `z.enum()`. Use `z.enum()` instead.
 *
 * ```ts
 * enum Colors { red, green, blue }
 * z.enum(Colors);
 * ```
 */
function nativeEnum(entries, params) {
    return new ZodEnum({
        type: "enum",
        entries,
        ...util.normalizeParams(params),
    });
}
const ZodLiteral = /*@__PURE__*/ $constructor("ZodLiteral", (inst, def) => {
    $ZodLiteral.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => literalProcessor(inst, ctx, json, params);
    inst.values = new Set(def.values);
    Object.defineProperty(inst, "value", {
        get() {
            if (def.values.length > 1) {
                throw new Error("This schema contains multiple valid literal values. Use `.values` instead.");
            }
            return def.values[0];
        },
    });
});
function literal(value, params) {
    return new ZodLiteral({
        type: "literal",
        values: Array.isArray(value) ? value : [value],
        ...normalizeParams(params),
    });
}
const ZodFile = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodFile", (inst, def) => {
    core.$ZodFile.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.fileProcessor(inst, ctx, json, params);
    inst.min = (size, params) => inst.check(core._minSize(size, params));
    inst.max = (size, params) => inst.check(core._maxSize(size, params));
    inst.mime = (types, params) => inst.check(core._mime(Array.isArray(types) ? types : [types], params));
})));
function file(params) {
    return core._file(ZodFile, params);
}
const ZodTransform = /*@__PURE__*/ $constructor("ZodTransform", (inst, def) => {
    _ensureDefaultMemoizer();
    $ZodTransform.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => transformProcessor(inst, ctx, json, params);
    inst._zod.parse = (payload, _ctx) => {
        if (_ctx.direction === "backward") {
            throw new $ZodEncodeError(inst.constructor.name);
        }
        payload.addIssue = (issue) => {
            if (typeof issue === "string") {
                payload.issues.push(util_issue(issue, payload.value, def));
            }
            else {
                // for Zod 3 backwards compatibility
                const _issue = issue;
                if (_issue.fatal)
                    _issue.continue = false;
                _issue.code ?? (_issue.code = "custom");
                if (!("input" in _issue))
                    _issue.input = payload.value;
                _issue.inst ?? (_issue.inst = inst);
                // _issue.continue ??= true;
                payload.issues.push(util_issue(_issue));
            }
        };
        const output = def.transform(payload.value, payload);
        if (output instanceof Promise) {
            return output.then((output) => {
                payload.value = output;
                return payload;
            });
        }
        payload.value = output;
        return payload;
    };
});
function transform(fn) {
    return new ZodTransform({
        type: "transform",
        transform: fn,
    });
}
const ZodOptional = /*@__PURE__*/ $constructor("ZodOptional", (inst, def) => {
    $ZodOptional.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => optionalProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
});
function optional(innerType) {
    return new ZodOptional({
        type: "optional",
        innerType: innerType,
    });
}
const ZodExactOptional = /*@__PURE__*/ $constructor("ZodExactOptional", (inst, def) => {
    $ZodExactOptional.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => optionalProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
});
function exactOptional(innerType) {
    return new ZodExactOptional({
        type: "optional",
        innerType: innerType,
    });
}
const ZodNullable = /*@__PURE__*/ $constructor("ZodNullable", (inst, def) => {
    $ZodNullable.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => nullableProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
});
function nullable(innerType) {
    return new ZodNullable({
        type: "nullable",
        innerType: innerType,
    });
}
// nullish
function schemas_nullish(innerType) {
    return optional(nullable(innerType));
}
const ZodDefault = /*@__PURE__*/ $constructor("ZodDefault", (inst, def) => {
    $ZodDefault.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => defaultProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
    inst.removeDefault = inst.unwrap;
});
function schemas_default(innerType, defaultValue) {
    return new ZodDefault({
        type: "default",
        innerType: innerType,
        get defaultValue() {
            return typeof defaultValue === "function" ? defaultValue() : shallowClone(defaultValue);
        },
    });
}
const ZodPrefault = /*@__PURE__*/ $constructor("ZodPrefault", (inst, def) => {
    $ZodPrefault.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => prefaultProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
});
function prefault(innerType, defaultValue) {
    return new ZodPrefault({
        type: "prefault",
        innerType: innerType,
        get defaultValue() {
            return typeof defaultValue === "function" ? defaultValue() : shallowClone(defaultValue);
        },
    });
}
const ZodNonOptional = /*@__PURE__*/ $constructor("ZodNonOptional", (inst, def) => {
    $ZodNonOptional.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => nonoptionalProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
});
function nonoptional(innerType, params) {
    return new ZodNonOptional({
        type: "nonoptional",
        innerType: innerType,
        ...normalizeParams(params),
    });
}
const ZodSuccess = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodSuccess", (inst, def) => {
    core.$ZodSuccess.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.successProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
})));
function success(innerType) {
    return new ZodSuccess({
        type: "success",
        innerType: innerType,
    });
}
const ZodCatch = /*@__PURE__*/ $constructor("ZodCatch", (inst, def) => {
    $ZodCatch.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => catchProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
    inst.removeCatch = inst.unwrap;
});
function schemas_catch(innerType, catchValue) {
    return new ZodCatch({
        type: "catch",
        innerType: innerType,
        catchValue: (typeof catchValue === "function" ? catchValue : constantCatch(catchValue)),
    });
}

const ZodNaN = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodNaN", (inst, def) => {
    core.$ZodNaN.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.nanProcessor(inst, ctx, json, params);
})));
function nan(params) {
    return core._nan(ZodNaN, params);
}
const ZodPipe = /*@__PURE__*/ $constructor("ZodPipe", (inst, def) => {
    $ZodPipe.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => pipeProcessor(inst, ctx, json, params);
    inst.in = def.in;
    inst.out = def.out;
});
function pipe(in_, out) {
    return new ZodPipe({
        type: "pipe",
        in: in_,
        out: out,
        // ...util.normalizeParams(params),
    });
}
const ZodCodec = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodCodec", (inst, def) => {
    ZodPipe.init(inst, def);
    core.$ZodCodec.init(inst, def);
})));
function codec(in_, out, params) {
    return new ZodCodec({
        type: "pipe",
        in: in_,
        out: out,
        transform: params.decode,
        reverseTransform: params.encode,
    });
}
function invertCodec(codec) {
    const def = codec._zod.def;
    return new ZodCodec({
        type: "pipe",
        in: def.out,
        out: def.in,
        transform: def.reverseTransform,
        reverseTransform: def.transform,
    });
}
const ZodPreprocess = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodPreprocess", (inst, def) => {
    ZodPipe.init(inst, def);
    core.$ZodPreprocess.init(inst, def);
})));
const ZodReadonly = /*@__PURE__*/ $constructor("ZodReadonly", (inst, def) => {
    $ZodReadonly.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => readonlyProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
});
function readonly(innerType) {
    return new ZodReadonly({
        type: "readonly",
        innerType: innerType,
    });
}
const ZodTemplateLiteral = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodTemplateLiteral", (inst, def) => {
    core.$ZodTemplateLiteral.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.templateLiteralProcessor(inst, ctx, json, params);
})));
function templateLiteral(parts, params) {
    return new ZodTemplateLiteral({
        type: "template_literal",
        parts,
        ...util.normalizeParams(params),
    });
}
const ZodLazy = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodLazy", (inst, def) => {
    core.$ZodLazy.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.lazyProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.getter();
})));
function lazy(getter) {
    return new ZodLazy({
        type: "lazy",
        getter: getter,
    });
}
const ZodPromise = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodPromise", (inst, def) => {
    core.$ZodPromise.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.promiseProcessor(inst, ctx, json, params);
    inst.unwrap = () => inst._zod.def.innerType;
})));
function promise(innerType) {
    return new ZodPromise({
        type: "promise",
        innerType: innerType,
    });
}
const ZodFunction = /*@__PURE__*/ (/* unused pure expression or super */ null && (core.$constructor("ZodFunction", (inst, def) => {
    core.$ZodFunction.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => processors.functionProcessor(inst, ctx, json, params);
})));
function _function(params) {
    return new ZodFunction({
        type: "function",
        input: Array.isArray(params?.input) ? tuple(params?.input) : (params?.input ?? array(unknown())),
        output: params?.output ?? unknown(),
    });
}

const ZodCustom = /*@__PURE__*/ $constructor("ZodCustom", (inst, def) => {
    $ZodCustom.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json, params) => customProcessor(inst, ctx, json, params);
});
// custom checks
function check(fn) {
    const ch = new core.$ZodCheck({
        check: "custom",
        // ...util.normalizeParams(params),
    });
    ch._zod.check = fn;
    return ch;
}
function custom(fn, _params) {
    return core._custom(ZodCustom, fn ?? (() => true), _params);
}
function refine(fn, _params = {}) {
    return _refine(ZodCustom, fn, _params);
}
// superRefine
function superRefine(fn, params) {
    return _superRefine(fn, params);
}
// Re-export describe and meta from core
const schemas_describe = describe;
const schemas_meta = meta;
const ZodInstanceOf = /*@__PURE__*/ $constructor("ZodInstanceOf", (inst, def) => {
    ZodCustom.init(inst, def);
}, {
    properties(shape, params) {
        // asserts in place, so the narrowed output type is truthful without a wrapper
        return this.check(_properties(shape, params));
    },
});
function _instanceof(cls, params = {}) {
    const inst = new ZodInstanceOf({
        type: "custom",
        check: "custom",
        fn: (data) => data instanceof cls,
        abort: true,
        ...util.normalizeParams(params),
    });
    inst._zod.bag.Class = cls;
    // Override check to emit invalid_type instead of custom
    inst._zod.check = (payload) => {
        if (!(payload.value instanceof cls)) {
            payload.issues.push({
                code: "invalid_type",
                expected: cls.name,
                input: payload.value,
                inst,
                path: [...(inst._zod.def.path ?? [])],
            });
        }
    };
    return inst;
}

// stringbool
const stringbool = (...args) => core._stringbool({
    Codec: ZodCodec,
    Boolean: ZodBoolean,
    String: ZodString,
}, ...args);
function json(params) {
    const jsonSchema = lazy(() => {
        return union([schemas_string(params), schemas_number(), schemas_boolean(), schemas_null(), array(jsonSchema), record(schemas_string(), jsonSchema)]);
    });
    return jsonSchema;
}
// preprocess
function preprocess(fn, schema) {
    return new ZodPreprocess({
        type: "pipe",
        in: transform(fn),
        out: schema,
    });
}

;// CONCATENATED MODULE: ./src/model/safe.ts
/**
 * What any string or number read from a file, a flag or the environment must satisfy before it
 * reaches a terminal, a runner log, a path or the arithmetic. Artifacts and the config are
 * files anyone can edit in a pull request: nothing in them may carry a workflow command on its
 * own line, reorder text with bidi controls, name a path outside the state directory, or be so
 * large that the arithmetic never ends.
 */


/**
 * C0 controls (newline and tab included), DEL, C1 controls, the Unicode line and paragraph
 * separators, and the bidi controls (embeddings, overrides, isolates, marks) that make text
 * read differently from what it is.
 */
const UNSAFE_CHARACTERS = 
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this finds
/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const describeUnsafe = (value) => {
    const found = UNSAFE_CHARACTERS.exec(value);
    const code = found ? found[0].codePointAt(0) : 0;
    return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
};
/** A string with no control, line-separator or bidi character: one line, read as written. */
const safeString = schemas_string().superRefine((value, ctx) => {
    if (UNSAFE_CHARACTERS.test(value)) {
        ctx.addIssue({
            code: 'custom',
            message: `contains a control or bidi character (${describeUnsafe(value)}); only printable text is accepted`,
        });
    }
});
/**
 * SageMaker's own pattern for endpoint, endpoint-config, model and production-variant names
 * (CreateEndpoint / ProductionVariant.VariantName): letters, digits and hyphens, 1-63, starting
 * and ending with a letter or digit. No `.` and no `/`, so such a name never becomes a path
 * outside the directory it is joined to.
 */
const AWS_NAME_PATTERN = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;
const endpointNameSchema = schemas_string()
    .regex(AWS_NAME_PATTERN, 'a SageMaker endpoint name (letters, digits and hyphens, 1-63 characters)');
const variantNameSchema = schemas_string()
    .regex(AWS_NAME_PATTERN, 'a SageMaker production variant name (letters, digits and hyphens, 1-63 characters)');
/** An AWS region name as the SDK takes it (`us-east-1`), or `local` for the local SageMaker. */
const safe_regionSchema = schemas_string()
    .regex(/^[a-z]{2,}(-[a-z0-9]+)*$/, 'an AWS region such as us-east-1 (or local)');
/**
 * An endpoint or variant name from a flag, an input or a file, checked before it is used for
 * anything (a request, a path). `source` names where it came from (`--endpoint`, a file).
 */
function safe_checkAwsName(value, kind, source) {
    if (!AWS_NAME_PATTERN.test(value)) {
        throw new UsageError(`${source} ${JSON.stringify(value).slice(0, 100)}: not a SageMaker ${kind} name (letters, digits and hyphens, 1-63 characters, starting and ending with a letter or digit). Give the ${kind} name exactly as SageMaker shows it.`);
    }
    return value;
}
/** How far ahead of this machine's clock a recorded time may be (another machine's skew). */
const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;
/**
 * An ISO-8601 time with an offset that is not in the future (beyond the skew allowance). A time
 * in the future would win every "newest measurement" choice forever.
 */
const pastTime = schemas_string()
    .datetime({ offset: true })
    .superRefine((value, ctx) => {
    const at = Date.parse(value);
    if (Number.isFinite(at) && at > Date.now() + MAX_CLOCK_SKEW_MS) {
        ctx.addIssue({
            code: 'custom',
            message: `${value} is in the future (this machine's clock reads ${new Date().toISOString()}; ${MAX_CLOCK_SKEW_MS / 60000} min of skew allowed)`,
        });
    }
});
/**
 * Bounds of the numbers the arithmetic uses. Far beyond anything a SageMaker instance does (one
 * instance serving a million requests per second, a scale-out taking a day) and small enough
 * that no sum or product overflows to Infinity and no simulation loops forever.
 */
const LIMITS = {
    /** Requests per second, per instance or for the fleet (peak/trough load). */
    rps: 1e6,
    /** Concurrent requests on one instance: rungs, Q_max (what the surge simulation walks). */
    concurrency: 10_000,
    /** A deployed admission bound (MAX_QUEUE_DEPTH), checked against the plan's own Q_max by the gate. */
    queue: 1_000_000,
    /** Milliseconds of latency or SLO (one hour). */
    ms: 3_600_000,
    /** Seconds of service time, T_total, lags, windows (one day). */
    seconds: 86_400,
    /** Instance counts. */
    instances: 100_000,
    /** A CloudWatch/client ratio. */
    ratio: 1_000,
    /** Counts of requests in a rung or a run. */
    count: 1e12,
    /** Dollars per instance-hour. */
    usd: 1e6,
};
/** A finite number in [min, max] whose message names the bound. */
const boundedNumber = (min, max, what) => schemas_number()
    .min(min, `${what} must be at least ${min}`)
    .max(max, `${what} above ${max} is not plausible; check the file or flag`);

;// CONCATENATED MODULE: ./src/model/request-shape.ts
/**
 * The request shape a load sends: the body (a JSON template with the placeholder `{{text}}`, the
 * prompt inserted JSON-escaped; or `jsonl`, each line of the prompts file sent as it is), its
 * Content-Type and its Accept. A container reads one shape; a measurement made with another says
 * nothing about it, so the shape is part of the measurement's fingerprint.
 *
 * Given per model in the config (`request: { body_template, content_type, accept }`) and per run
 * with `--body-template`, `--content-type`, `--accept` (the flags win). Checked when read: a
 * template that is not JSON once a text is inserted, or that never inserts it, is refused there.
 */



const TEXT_PLACEHOLDER = '{{text}}';
/** The mode that sends every field of each JSONL prompt line as it is (no template). */
const JSONL_BODY = 'jsonl';
/** Today's contract of the reference container: `{"text": ...}`. */
const DEFAULT_BODY_TEMPLATE = '{"text":"{{text}}"}';
const DEFAULT_CONTENT_TYPE = 'application/json';
const DEFAULT_ACCEPT = 'audio/wav';
/** `type/subtype`, optionally with `; name=value` parameters (RFC 9110 tokens). */
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+*-]+(\s*;\s*[A-Za-z0-9!#$&^_.+-]+=("[^"]*"|[^\s;"]+))*$/;
const MAX_TEMPLATE_CHARS = 4096;
/** The shape as a measurement records it (in its fingerprint). */
const requestShapeSchema = object({
    /** The body template in canonical JSON (`{{text}}` where the prompt goes), or `jsonl`. */
    body: safeString.min(1).max(MAX_TEMPLATE_CHARS),
    content_type: safeString.regex(MEDIA_TYPE, 'a media type such as application/json'),
    accept: safeString.regex(MEDIA_TYPE, 'a media type such as audio/wav'),
})
    .strict();
const DEFAULT_REQUEST_SHAPE = Object.freeze({
    body: DEFAULT_BODY_TEMPLATE,
    content_type: DEFAULT_CONTENT_TYPE,
    accept: DEFAULT_ACCEPT,
});
/** A prompt that exercises the escaping: quotes, a backslash, a newline, non-ASCII. */
const PROBE_TEXT = 'He said "hi" \\ then\nleft – ünïcode';
/** Stands for the placeholder while the template is parsed (cannot occur in JSON text by chance). */
const SENTINEL = '__scalegate_text_placeholder_3f9c__';
/** The prompt as it goes inside a JSON string: JSON-escaped, without the quotes. */
const jsonEscaped = (text) => JSON.stringify(text).slice(1, -1);
/** Whether some string in `value` (key or value) contains `needle`. */
function containsString(value, needle) {
    if (typeof value === 'string')
        return value.includes(needle);
    if (Array.isArray(value))
        return value.some((v) => containsString(v, needle));
    if (value !== null && typeof value === 'object') {
        return Object.entries(value).some(([k, v]) => k.includes(needle) || containsString(v, needle));
    }
    return false;
}
/**
 * The template's canonical form, or what is wrong with it (a sentence without the option's name).
 * `jsonl` is the JSONL mode; anything else must be JSON with `{{text}}` inside a string.
 */
function checkBodyTemplate(raw) {
    const template = raw.trim();
    if (template === JSONL_BODY)
        return { ok: true, body: JSONL_BODY };
    if (template.length > MAX_TEMPLATE_CHARS) {
        return { ok: false, problem: `is longer than ${MAX_TEMPLATE_CHARS} characters` };
    }
    if (!template.includes(TEXT_PLACEHOLDER)) {
        return {
            ok: false,
            problem: `has no ${TEXT_PLACEHOLDER} placeholder, so every request would carry the same body. Put ${TEXT_PLACEHOLDER} where the text goes, inside a JSON string (e.g. {"input":"${TEXT_PLACEHOLDER}","voice":"af_heart"}), or use ${JSONL_BODY} to send each line of a JSONL prompts file as it is`,
        };
    }
    let parsed;
    try {
        parsed = JSON.parse(template.split(TEXT_PLACEHOLDER).join(jsonEscaped(PROBE_TEXT)));
    }
    catch (e) {
        return {
            ok: false,
            problem: `is not valid JSON once a text is inserted (${e.message}). The text goes in JSON-escaped, without quotes: write "${TEXT_PLACEHOLDER}" inside a JSON string, e.g. {"input":"${TEXT_PLACEHOLDER}"}`,
        };
    }
    if (!containsString(parsed, PROBE_TEXT)) {
        return { ok: false, problem: `does not carry the text: put ${TEXT_PLACEHOLDER} inside a JSON string` };
    }
    const canonical = JSON.stringify(JSON.parse(template.split(TEXT_PLACEHOLDER).join(SENTINEL)));
    return { ok: true, body: canonical.split(SENTINEL).join(TEXT_PLACEHOLDER) };
}
/** Whether `raw` is a media type a header can carry. */
const isMediaType = (raw) => MEDIA_TYPE.test(raw.trim());
/** The config's form: `request` of a model. */
const requestConfigSchema = object({
    /** JSON with `{{text}}` (inserted JSON-escaped), or `jsonl`. @default {"text":"{{text}}"} */
    body_template: schemas_string()
        .superRefine((value, ctx) => {
        const checked = checkBodyTemplate(value);
        if (!checked.ok)
            ctx.addIssue({ code: 'custom', message: `the body template ${checked.problem}` });
    })
        .optional(),
    /** @default application/json */
    content_type: safeString.regex(MEDIA_TYPE, 'a media type such as application/json').optional(),
    /** @default audio/wav */
    accept: safeString.regex(MEDIA_TYPE, 'a media type such as audio/wav').optional(),
})
    .strict();
const refuse = (parts) => new UsageError(parts);
/**
 * The shape a run sends: each flag, else the model's `request` in the config, else today's
 * `{"text": ...}` as application/json accepting audio/wav. A bad value is refused (exit 2) naming
 * the flag or the config key it came from, with the fix.
 */
function resolveRequestShape(input, config, where) {
    const key = (field) => `models.${where.modelName}.request.${field} in ${where.configFile}`;
    let body = DEFAULT_BODY_TEMPLATE;
    if (input.bodyTemplate !== undefined) {
        const checked = checkBodyTemplate(input.bodyTemplate);
        if (!checked.ok)
            refuseTemplate([opt('body-template', `'${input.bodyTemplate}'`)], checked.problem);
        else
            body = checked.body;
    }
    else if (config?.body_template !== undefined) {
        const checked = checkBodyTemplate(config.body_template);
        if (!checked.ok)
            refuseTemplate([key('body_template')], checked.problem);
        else
            body = checked.body;
    }
    const media = (flag, given, configured, fallback) => {
        if (given !== undefined) {
            if (!isMediaType(given)) {
                throw refuse([
                    opt(flag, given),
                    `: not a media type. Give the type your container reads, e.g. application/json or audio/wav.`,
                ]);
            }
            return given.trim();
        }
        return configured ?? fallback;
    };
    return {
        body,
        content_type: media('content-type', input.contentType, config?.content_type, DEFAULT_CONTENT_TYPE),
        accept: media('accept', input.accept, config?.accept, DEFAULT_ACCEPT),
    };
}
function refuseTemplate(source, problem) {
    throw refuse([...source, `: the body template ${problem}.`]);
}
/** The shape a model's config sends (already checked when the config was read). */
function configuredRequestShape(config) {
    const checked = config?.body_template === undefined ? null : checkBodyTemplate(config.body_template);
    return {
        body: checked?.ok ? checked.body : DEFAULT_BODY_TEMPLATE,
        content_type: config?.content_type ?? DEFAULT_CONTENT_TYPE,
        accept: config?.accept ?? DEFAULT_ACCEPT,
    };
}
/** The body of one request: the template with the prompt inserted JSON-escaped. */
function renderBody(template, text) {
    return template.split(TEXT_PLACEHOLDER).join(jsonEscaped(text));
}
/** A fingerprint's shape, an absent one read as today's default (artifacts written before it was recorded). */
const shapeOf = (shape) => shape ?? DEFAULT_REQUEST_SHAPE;
function sameRequestShape(a, b) {
    const x = shapeOf(a);
    const y = shapeOf(b);
    return x.body === y.body && x.content_type === y.content_type && x.accept === y.accept;
}
/** One line: `{"input":"{{text}}"} as application/json, accepting audio/wav`. */
function requestShapeLabel(shape) {
    const s = shapeOf(shape);
    const body = s.body === JSONL_BODY ? 'each JSONL prompt line as is' : s.body;
    return `${body} as ${s.content_type}, accepting ${s.accept}`;
}

;// CONCATENATED MODULE: ./src/model/fingerprint.ts



/** Region name of the local SageMaker: a measurement made there never fingerprints a real region. */
const fingerprint_LOCAL_REGION = 'local';
/**
 * What a measurement is valid for. Two artifacts pair only when their fingerprints are equal:
 * a Q_max measured on another image, instance type, environment or region says nothing about
 * this one.
 */
const fingerprintSchema = object({
    instance_type: schemas_string().regex(/^ml\.[a-z0-9]+\.[a-z0-9]+$/, 'an instance type such as ml.g5.xlarge'),
    /** The part after `@sha256:` of the image URI, or its tag (CDK asset tags are 64-hex content hashes). */
    image_digest: safeString.min(1).max(200),
    /** Container environment without `AWS_*` and ambient keys (see AMBIENT_ENV_KEYS). */
    container_env: record(safeString, safeString),
    /** null only for legacy artifacts, which did not record it (the gate refuses those). */
    region: safe_regionSchema.nullable(),
    /**
     * The request shape the load sent (body template, Content-Type, Accept): a container measured
     * with another body is another measurement. Absent in artifacts written before it was
     * recorded: read as the default `{"text": ...}` as application/json, accepting audio/wav.
     */
    request: requestShapeSchema.optional(),
});
/**
 * Keys that say nothing about what the model computes: set by the platform or the base image,
 * derived from the plan itself (MAX_QUEUE_DEPTH comes from Q_max, so fingerprinting it would make
 * every deploy of a new plan look like a new container), or naming where the deployment is
 * (SCALEGATE_ENDPOINT_NAME / SCALEGATE_VARIANT_NAME, the dimensions of the container's service-time
 * metric: the calibration copy and production differ there and run the same container).
 */
const AMBIENT_ENV_KEYS = new Set([
    'HOME',
    'HOSTNAME',
    'LANG',
    'LC_ALL',
    'MAX_QUEUE_DEPTH',
    'NODE_VERSION',
    'PATH',
    'PORT',
    'PWD',
    'SAGEMAKER_BIND_TO_PORT',
    'SCALEGATE_ENDPOINT_NAME',
    'SCALEGATE_VARIANT_NAME',
    'SHLVL',
    'TERM',
    'TZ',
    'YARN_VERSION',
]);
function measuredEnvironment(env) {
    const kept = Object.entries(env)
        .filter(([key]) => !key.startsWith('AWS_') && !AMBIENT_ENV_KEYS.has(key))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(kept);
}
/** `...@sha256:<hex>` -> `<hex>`; `repo:tag` -> `tag`; a bare repository -> `latest`. */
function imageDigestOf(imageUri) {
    const at = imageUri.indexOf('@sha256:');
    if (at >= 0)
        return imageUri.slice(at + '@sha256:'.length);
    const lastSegment = imageUri.slice(imageUri.lastIndexOf('/') + 1);
    const colon = lastSegment.lastIndexOf(':');
    return colon >= 0 ? lastSegment.slice(colon + 1) : 'latest';
}
/**
 * The fingerprint a measurement of `model` carries, from the config side: its instance type, the
 * image digest it deploys (src/model/asset-hash.ts `modelImageDigest`) and its measured
 * environment, in `region`. What the http transport records, what the gate and the action's
 * discovery compare measurements with.
 */
function configFingerprint(model, imageDigest, region, request = configuredRequestShape(model.request)) {
    return {
        instance_type: model.instance_type,
        image_digest: imageDigest,
        container_env: measuredEnvironment(model.container_env),
        region,
        request,
    };
}
/** `ml.g5.xlarge` + `8b1b96bc…` -> `g5xlarge-8b1b96bc`. */
function fingerprint_fingerprintSlug(fp) {
    const instance = fp.instance_type.replace(/^ml\./, '').replaceAll('.', '');
    const digest = fp.image_digest
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '')
        .slice(0, 8);
    return `${instance}-${digest}`;
}
/**
 * Fields on which two fingerprints disagree. A legacy artifact's unknown region (null) is not a
 * difference: it cannot be checked, and the gate separately refuses measurements from the local
 * SageMaker for real regions.
 */
function fingerprintDifferences(left, right) {
    const differences = [];
    if (left.instance_type !== right.instance_type) {
        differences.push({ field: 'instance_type', left: left.instance_type, right: right.instance_type });
    }
    if (left.image_digest !== right.image_digest) {
        differences.push({ field: 'image_digest', left: left.image_digest, right: right.image_digest });
    }
    const leftEnv = JSON.stringify(measuredEnvironment(left.container_env));
    const rightEnv = JSON.stringify(measuredEnvironment(right.container_env));
    if (leftEnv !== rightEnv)
        differences.push({ field: 'container_env', left: leftEnv, right: rightEnv });
    if (left.region !== null && right.region !== null && left.region !== right.region) {
        differences.push({ field: 'region', left: left.region, right: right.region });
    }
    if (!sameRequestShape(left.request, right.request)) {
        differences.push({
            field: 'request',
            left: requestShapeLabel(left.request),
            right: requestShapeLabel(right.request),
        });
    }
    return differences;
}

;// CONCATENATED MODULE: ./src/model/asset-hash.ts
/**
 * The content hash of a Docker image directory, computed exactly as the CDK's `DockerImageAsset`
 * computes `assetHash` (aws-cdk-lib/aws-ecr-assets/lib/image-asset.js, AssetStaging): a
 * fingerprint of the directory with the `.dockerignore` lines as excludes (plus `!.dockerignore`,
 * `!Dockerfile`, `.is_custom_resource`), Docker ignore semantics, and the asset's extra hash
 * `{"version":"1.21.0"}` (no build args, target, file or platform). It is the image tag the CDK
 * deploys: the digest a `container_dir` model's measurements carry, what `scalegate gate` checks
 * and what the local SageMaker reports when the product starts it.
 */





/**
 * aws-cdk-lib is loaded at run time, from node_modules, through a require whose argument a
 * bundler cannot see: bundling it into dist/cli.mjs (ncc) would add ~57 MB and extra asset files.
 */
function loadAtRuntime(specifier) {
    return (0,external_node_module_namespaceObject.createRequire)(import.meta.url)(specifier);
}
/** The `extraHash` DockerImageAsset passes when no build option is set (aws-cdk-lib 2.276.0). */
const DOCKER_ASSET_EXTRA_HASH = JSON.stringify({ version: '1.21.0' });
function containerAssetHash(dir, dockerfile = 'Dockerfile') {
    const ignoreFile = (0,external_node_path_namespaceObject.join)(dir, '.dockerignore');
    let exclude = [];
    if ((0,external_node_fs_namespaceObject.existsSync)(ignoreFile)) {
        exclude = [
            ...(0,external_node_fs_namespaceObject.readFileSync)(ignoreFile)
                .toString()
                .split('\n')
                .filter((line) => !!line),
            '!.dockerignore',
        ];
    }
    exclude.push(`!${dockerfile}`);
    let cdk;
    try {
        cdk = loadAtRuntime('aws-cdk-lib');
    }
    catch (e) {
        if (e.code === 'MODULE_NOT_FOUND' &&
            /aws-cdk-lib/.test(e.message)) {
            throw new errors_UsageError(`${dir} is a container_dir model, whose image digest is its CDK asset hash, and aws-cdk-lib is not installed where scalegate runs. ` +
                'Install it beside scalegate (`npm install --save-dev scalegate aws-cdk-lib`, an optional peer dependency; a checkout of the repository has it after `npm ci`), ' +
                'or pin the model by `image_uri` (`...@sha256:<digest>`), which needs no CDK.');
        }
        throw e;
    }
    const { FileSystem, IgnoreMode } = cdk;
    return FileSystem.fingerprint(dir, {
        // AssetStaging puts this one first.
        exclude: ['.is_custom_resource', ...exclude],
        ignoreMode: IgnoreMode.DOCKER,
        extraHash: DOCKER_ASSET_EXTRA_HASH,
    });
}
/**
 * The digest of the image a model deploys, from the config side: the CDK asset hash of
 * `container_dir` (resolved against the config file's directory), or the digest `image_uri` pins.
 */
function modelImageDigest(model, configFile, assetHash = containerAssetHash) {
    if (model.container_dir)
        return assetHash((0,external_node_path_namespaceObject.resolve)((0,external_node_path_namespaceObject.dirname)((0,external_node_path_namespaceObject.resolve)(configFile)), model.container_dir));
    return imageDigestOf(model.image_uri);
}

;// CONCATENATED MODULE: ./src/model/artifacts/common.ts


/**
 * Every artifact scalegate writes. Artifact JSON is snake_case and continues the names of the
 * legacy format (../anchor-artifacts) where it had one. Bump SCHEMA_VERSION on any incompatible
 * change and teach `legacy.ts`/`io.ts` to read the old one.
 */
const SCHEMA_VERSION = 1;
const isoTime = schemas_string().datetime({ offset: true });
/** Times an artifact is ordered by (discovery, comment ordering): never in the future. */
const recordedAt = pastTime;
const runId = safeString.min(1).max(200);
// Bounded numbers (see LIMITS): a hand-edited artifact cannot overflow the arithmetic.
const ms = (what) => boundedNumber(0, LIMITS.ms, what);
const seconds = (what) => boundedNumber(0, LIMITS.seconds, what);
const signedSeconds = (what) => boundedNumber(-LIMITS.seconds, LIMITS.seconds, what);
const rps = (what) => boundedNumber(0, LIMITS.rps, what);
const concurrency = (what) => boundedNumber(0, LIMITS.concurrency, what);
const count = (what) => boundedNumber(0, LIMITS.count, what).int();
const instances = (what) => boundedNumber(0, LIMITS.instances, what).int();
const provenanceSchema = object({
    /** `measured` by scalegate, `legacy` read from the pre-schema format, `stated` by an operator. */
    origin: schemas_enum(['measured', 'legacy', 'stated']),
    tool: safeString,
    note: safeString.nullable(),
});
/** What a freeze put back after a run (qmax, goodput, ttotal): the restore's actions and errors. */
const restoreRecordSchema = object({ actions: array(safeString), errors: array(safeString) });
/** The restore record with what the thaw journal held: desired count and suspension flags (ttotal). */
const journalRestoreRecordSchema = object({
    desired_instance_count: schemas_number().int().nonnegative(),
    suspension_restored: schemas_boolean(),
    ...restoreRecordSchema.shape,
});
const transportSchema = schemas_enum(['response-stream', 'http', 'sdk']);
/** Transports that go through a SageMaker endpoint (as opposed to a container's own http). */
const isSageMakerTransport = (kind) => kind === 'response-stream' || kind === 'sdk';
const intervalSchema = object({
    low: boundedNumber(-LIMITS.ms, LIMITS.ms, 'interval low'),
    high: boundedNumber(-LIMITS.ms, LIMITS.ms, 'interval high'),
});
/**
 * `undecided`: no decision at the stated level (too few batches or samples, or the interval
 * straddles the SLO). `uncertain` is its name in artifacts written before the batch decision.
 */
const rungVerdictSchema = schemas_enum(['pass', 'fail', 'undecided', 'uncertain']);

;// CONCATENATED MODULE: ./src/model/artifacts/drift.ts



const comparisonRowSchema = object({
    parameter: safeString,
    expected: union([safeString, schemas_number(), schemas_boolean(), schemas_null()]),
    deployed: union([safeString, schemas_number(), schemas_boolean(), schemas_null()]),
    verdict: schemas_enum(['match', 'mismatch', 'missing', 'extra', 'warn']),
});
const driftArtifactSchema = object({
    schema_version: literal(SCHEMA_VERSION),
    kind: literal('drift'),
    model_name: safeString,
    endpoint: endpointNameSchema,
    region: safe_regionSchema,
    run_id: runId,
    checked_at: recordedAt,
    verdict: schemas_enum(['preflight-ok', 'drift']),
    plan: object({ file: safeString, run_id: safeString }).nullable(),
    findings: array(object({
        check: safeString,
        verdict: schemas_enum(['ok', 'warn', 'drift']),
        detail: safeString,
        remediation: safeString.nullable(),
    })),
    rows: array(comparisonRowSchema),
});

;// CONCATENATED MODULE: ./src/model/outcomes.ts

/** How one request ended (closed and open loop). Its own module: the histogram schemas need it too. */
const outcomeSchema = schemas_enum([
    'ok',
    'saturated_503',
    'throttled_429',
    'server_5xx',
    'model_error',
    'client_timeout',
    'error',
]);

;// CONCATENATED MODULE: ./src/model/histograms.ts
/**
 * Serialized open-loop measurements: HDR histograms per time window, as the goodput and drill
 * artifacts (and shard files that `merge` combines) carry them. A histogram is stored as
 * HdrHistogram's compressed base64 encoding (V2 format, the one every HdrHistogram port reads),
 * values in integer microseconds. Windows are indexed by the INTENDED send time of a request
 * (offset from the schedule start), so shards of one schedule put every request in the same
 * window and merging is a plain sum per index.
 */


/** Encoding of `data`: HdrHistogram V2 compressed, base64 (hdr-histogram-js encodeIntoCompressedBase64). */
const HDR_ENCODING = 'hdr-v2-compressed-base64';
const hdrHistogramSchema = object({
    encoding: literal(HDR_ENCODING),
    unit: literal('us'),
    /** Relative precision: values are kept to this many significant decimal digits. */
    significant_digits: schemas_number().int().min(1).max(5),
    /** Recorded values (redundant with `data`; checked on decode so a corrupted file is caught). */
    count: schemas_number().int().nonnegative(),
    data: schemas_string(),
});
/** The open loop's outcomes: the closed set plus arrivals the client refused at its outstanding cap. */
const openLoopOutcomeSchema = schemas_enum([...outcomeSchema.options, 'client_dropped']);
const openLoopWindowSchema = object({
    /** Window number: intended send offset / window_ms, rounded down. */
    index: schemas_number().int().nonnegative(),
    /** Arrivals the schedule put in this window (for this shard). */
    offered: schemas_number().int().nonnegative(),
    /** Arrivals actually sent (offered minus client_dropped). */
    sent: schemas_number().int().nonnegative(),
    /** Finished requests by outcome, client_dropped included; counted in the window of their intended time. */
    outcome_counts: partialRecord(openLoopOutcomeSchema, schemas_number().int().nonnegative()),
    /** TTFAB of ok requests from the intended send time (coordinated-omission correct). */
    ttfab_intended: hdrHistogramSchema,
    /** TTFAB of ok requests from the actual send (what a closed-loop tool would report). */
    ttfab_sent: hdrHistogramSchema,
    /** Whole-response latency of ok requests from the intended send time. */
    latency_intended: hdrHistogramSchema,
    /** Whole-response latency of ok requests from the actual send. */
    latency_sent: hdrHistogramSchema,
    /** Actual send minus intended send of every sent request (schedule adherence). */
    send_lag: hdrHistogramSchema,
});
const arrivalProcessSchema = schemas_enum(['constant', 'poisson', 'replay']);
/** What schedule the requests followed: shards of one schedule agree on all of it. */
const scheduleIdentitySchema = object({
    process: arrivalProcessSchema,
    /** Seed of the Poisson process; null for deterministic schedules. */
    seed: schemas_number().int().nonnegative().nullable(),
    /** Human-readable description, e.g. `poisson 120/s for 60 s` or `step schedule.csv`. */
    description: schemas_string(),
    /** Hash of the whole schedule definition (process, rates, seed, file content): equal iff the schedule is. */
    schedule_hash: schemas_string().regex(/^[0-9a-f]{64}$/),
    /** Arrivals of the whole schedule (all shards). */
    arrivals: schemas_number().int().nonnegative(),
    duration_s: schemas_number().nonnegative(),
});
const shardSchema = object({ index: schemas_number().int().nonnegative(), count: schemas_number().int().positive() })
    .refine((s) => s.index < s.count, { message: 'shard index must be below the shard count' });
/** One open-loop run (or the merge of the shards of one): the windows and what they belong to. */
const openLoopHistogramsSchema = object({
    schedule: scheduleIdentitySchema,
    /** Wall time of the schedule's offset 0 (the agreed start of every shard). */
    start_at: schemas_string().datetime({ offset: true }),
    window_ms: schemas_number().int().positive(),
    /** Shards whose data this holds: one for a single run, all 0..n-1 after a merge. */
    shards: array(shardSchema).min(1),
    windows: array(openLoopWindowSchema),
});

;// CONCATENATED MODULE: ./src/model/vantage.ts
/**
 * Where a load came from: the kind of machine (a GitHub-hosted runner, a self-hosted one, an AWS
 * CodeBuild build or runner, a machine outside CI), its AWS region when one is known, its host
 * name, and the RTT floor to the endpoint measured at the start of the run. A TTFAB measured from
 * a GitHub-hosted runner carries the internet leg to the endpoint's region; the vantage says how
 * much of first audio that leg may be. Detection reads an injected environment (pure).
 */



const RUNNER_KINDS = ['github-hosted', 'self-hosted', 'codebuild', 'local', 'unknown'];
/** The environment variable a runner declares its region with (a self-hosted runner in a VPC, say). */
const VANTAGE_REGION_ENV = 'SCALEGATE_VANTAGE_REGION';
const rttFloorSchema = object({
    /** `measured`: the fastest of `attempts` handshakes at the start of the run. */
    provenance: literal('measured'),
    /** `host:port` of the endpoint's runtime host (or the container measured directly). */
    target: safeString.max(300),
    /** Fastest TCP connect, ms (one round trip); null when no handshake completed. */
    tcp_ms: ms('rtt_floor.tcp_ms').nullable(),
    /** Fastest TCP + TLS handshake, ms; null over plain http. */
    tls_ms: ms('rtt_floor.tls_ms').nullable(),
    completed: schemas_number().int().nonnegative(),
    attempts: schemas_number().int().positive(),
    error: safeString.max(500).nullable(),
});
const vantageSchema = object({
    runner: schemas_enum(RUNNER_KINDS),
    /** AWS region the load came from, when known (CodeBuild's build ARN, or declared); else null. */
    region: safe_regionSchema.nullable(),
    /** Where `region` came from: the environment variable read, or null. */
    region_source: schemas_enum(['CODEBUILD_BUILD_ARN', 'AWS_REGION', VANTAGE_REGION_ENV]).nullable(),
    /** os.hostname() of the load generator. */
    host: safeString.max(255),
    /** null: not measured (a transport that does not say where it connects). */
    rtt_floor: rttFloorSchema.nullable(),
});
/** `arn:aws:codebuild:<region>:<account>:build/...` -> `<region>`. */
function regionOfArn(arn) {
    const region = arn?.split(':')[3];
    return region && regionSchema.safeParse(region).success ? region : null;
}
const clean = (value) => {
    const v = value?.trim();
    return v && regionSchema.safeParse(v).success ? v : null;
};
/**
 * The runner kind and region from the environment. CodeBuild first (a CodeBuild-hosted GitHub
 * Actions runner also says RUNNER_ENVIRONMENT=self-hosted): its region is the build ARN's (the
 * workflow's AWS_REGION may have been set to the endpoint's by a credentials step, so it is read
 * only when the ARN has none). GitHub's RUNNER_ENVIRONMENT tells hosted from self-hosted; a
 * GitHub-hosted runner is not in an AWS region. A self-hosted runner or a local machine has a
 * region only when it declares one (SCALEGATE_VANTAGE_REGION): the AWS_REGION of a workflow or a
 * shell names the endpoint's region, not the machine's.
 */
function detectVantage(env, host) {
    const declared = clean(env[VANTAGE_REGION_ENV]);
    const hostName = host.replace(/[^\x20-\x7e]/g, '?').slice(0, 255) || 'unknown';
    const from = (region, source) => region === null ? { region: null, region_source: null } : { region, region_source: source };
    if (env.CODEBUILD_BUILD_ARN) {
        const arnRegion = regionOfArn(env.CODEBUILD_BUILD_ARN);
        const located = declared
            ? from(declared, VANTAGE_REGION_ENV)
            : arnRegion
                ? from(arnRegion, 'CODEBUILD_BUILD_ARN')
                : from(clean(env.AWS_REGION), 'AWS_REGION');
        return { runner: 'codebuild', ...located, host: hostName };
    }
    const declaredRegion = from(declared, VANTAGE_REGION_ENV);
    if (env.GITHUB_ACTIONS === 'true') {
        const kind = env.RUNNER_ENVIRONMENT;
        if (kind === 'github-hosted')
            return { runner: 'github-hosted', ...from(null, null), host: hostName };
        if (kind === 'self-hosted')
            return { runner: 'self-hosted', ...declaredRegion, host: hostName };
        return { runner: 'unknown', ...declaredRegion, host: hostName };
    }
    return { runner: 'local', ...declaredRegion, host: hostName };
}

;// CONCATENATED MODULE: ./src/model/artifacts/client-health.ts


/**
 * What the load-generating client did during a rung (one process; merged shards: the worst of
 * them): event-loop lateness p99, CPU share of one core, send lag p99 and dropped arrivals (open
 * loop), and whether that let it keep its schedule (src/stats/client-health.ts).
 */
const clientHealthSchema = object({
    wall_s: schemas_number().nonnegative(),
    event_loop_delay_p99_ms: schemas_number().nonnegative().nullable(),
    cpu_share: schemas_number().nonnegative().nullable(),
    send_lag_p99_ms: schemas_number().nonnegative().nullable(),
    dropped_arrivals: schemas_number().int().nonnegative().nullable(),
    healthy: schemas_boolean(),
    /** Why not (empty when healthy): a rung that passed with an unhealthy client is undecided. */
    reasons: array(safeString),
});

;// CONCATENATED MODULE: ./src/model/artifacts/goodput.ts







/** How a goodput rung was judged: pass/fail/undecided by the decision; `pending` in a shard file. */
const rateVerdictSchema = schemas_enum(['pass', 'fail', 'undecided', 'pending']);
/**
 * What ConcurrentRequestsPerModel showed at one Poisson rate (goodput's CloudWatch join): the
 * per-period Maximum over the whole 10 s periods of the measure window, its median and spread, the
 * mean in flight (Little: the rate x the measured mean time in system) and the open-loop R (p50 /
 * mean in flight; 1.0 under a closed loop, far above it under random arrivals).
 */
const goodputMetricLevelSchema = object({
    metric: literal('ConcurrentRequestsPerModel'),
    statistic: literal('Maximum'),
    period_s: seconds('metric_level period_s').int().positive(),
    /** Whole periods inside the measure window that had a datapoint. */
    periods: count('metric_level periods').positive(),
    p10: concurrency('metric_level p10'),
    p50: concurrency('metric_level p50'),
    p90: concurrency('metric_level p90'),
    mean_in_flight: concurrency('metric_level mean_in_flight'),
    /** p50 / mean_in_flight; null when nothing was in flight on average. */
    open_loop_r: schemas_number().nonnegative().nullable(),
    origin: literal('measured'),
});
/** One arrival rate of the lambda_max ladder: what was offered, what came back, the verdict. */
const goodputRungSchema = object({
    /** Poisson arrival rate offered to the instance (all shards together), requests/s. */
    rate_rps: rps('rate_rps').positive(),
    /** Schedule start of this rung (wall time of offset 0). */
    started_at: isoTime,
    hold_s: seconds('hold_s').positive(),
    settle_s: seconds('settle_s'),
    verdict: rateVerdictSchema,
    reason: safeString,
    /** Arrivals of the measure window (client_dropped included), and how they ended. */
    offered: count('offered'),
    sent: count('sent'),
    ok: count('ok'),
    outcome_counts: partialRecord(openLoopOutcomeSchema, count('outcome count')),
    /** 503 queue_saturated and 429 over the arrivals of the measure window. */
    overflow_fraction: boundedNumber(0, 1, 'overflow_fraction'),
    /** Every other failure (5xx, model errors, timeouts, client_dropped) over the arrivals. */
    error_fraction: boundedNumber(0, 1, 'error_fraction'),
    /** Sent and ok requests per second of the measure window. */
    sent_rps: rps('sent_rps'),
    goodput_rps: rps('goodput_rps'),
    /** TTFAB of ok requests from the intended send time (coordinated-omission correct). */
    ttfab_p50_ms: ms('ttfab_p50_ms').nullable(),
    ttfab_p95_ms: ms('ttfab_p95_ms').nullable(),
    ttfab_p99_ms: ms('ttfab_p99_ms').nullable(),
    /** Interval of ttfab_p95_ms at ci_level (null: too few batches). */
    ttfab_p95_ci_ms: intervalSchema.nullable(),
    /** The naive figure from the actual send, for comparison only (it hides client stalls). */
    ttfab_sent_p95_ms: ms('ttfab_sent_p95_ms').nullable(),
    latency_p95_ms: ms('latency_p95_ms').nullable(),
    /** Actual minus intended send time, p99: how well the client kept the schedule. */
    send_lag_p99_ms: ms('send_lag_p99_ms').nullable(),
    /** Mean requests in the system over the measure window (Little), which sets the batch length. */
    mean_in_system: concurrency('mean_in_system'),
    decision_method: safeString,
    ci_level: schemas_number().min(0).max(1),
    /** Effective sample size: batches (0 without an interval). */
    effective_sample_size: schemas_number().int().nonnegative(),
    batch_size: schemas_number().nonnegative(),
    min_batch_size: schemas_number().nonnegative(),
    peak_outstanding: count('peak_outstanding').nullable(),
    client_event_loop_utilization: schemas_number().min(0).max(1).nullable(),
    instance_counts: array(instances('instance count')),
    /** The serialised HDR windows of the whole rung (settle included), mergeable across shards. */
    histograms: openLoopHistogramsSchema,
    /**
     * Additive: the tracked metric's level at this rate, from goodput's CloudWatch join over the
     * whole periods of the measure window; null when not joined (the artifact's `cloudwatch.error`
     * says why), absent in older files.
     */
    metric_level: goodputMetricLevelSchema.nullable().optional(),
    /**
     * Additive (absent in older files): the group-sequential record. `stopped_at_s`: seconds of
     * measure window at the look that ended the rung (the hold's when none did); `misses`: arrivals
     * counted at +infinity in the p95 (overflows, errors, timeouts, drops); the dependence
     * diagnostics of the last look; every look taken.
     */
    sequential: object({
        stopped_at_s: seconds('stopped_at_s'),
        stopped_early: schemas_boolean(),
        misses: count('misses'),
        correlation_windows: schemas_number().nonnegative(),
        fluctuation: schemas_number().nonnegative(),
        von_neumann: schemas_number().nonnegative().nullable(),
        sensitivity: schemas_number().nonnegative().nullable(),
        looks: array(object({
            span_s: seconds('span_s'),
            n: count('n'),
            alpha_pass: boundedNumber(0, 1, 'alpha_pass'),
            alpha_fail: boundedNumber(0, 1, 'alpha_fail'),
            verdict: schemas_enum(['pass', 'fail', 'undecided']),
            stop: schemas_boolean(),
            batches: schemas_number().int().nonnegative(),
            von_neumann: schemas_number().nonnegative().nullable(),
            sensitivity: schemas_number().nonnegative().nullable(),
        })),
    })
        .optional(),
    /** Additive: the client during the rung (a pass it could not keep the schedule for is undecided). */
    client_health: clientHealthSchema.nullable().optional(),
});
const goodputArtifactSchema = object({
    schema_version: literal(SCHEMA_VERSION),
    kind: literal('goodput'),
    model_name: safeString,
    endpoint: endpointNameSchema.nullable(),
    run_id: runId,
    measured_at: recordedAt,
    fingerprint: fingerprintSchema,
    /** Where the load came from (runner, region, host, RTT floor; a merge: the first file's); absent in artifacts written before it was recorded. */
    vantage: vantageSchema.optional(),
    transport: transportSchema,
    slo_ms: ms('slo_ms').positive(),
    /**
     * Highest Poisson arrival rate per instance whose p95 TTFAB from the intended send time was
     * decided within the SLO with overflows and errors within their limits; 0 when none was. null in
     * a shard file (decided after `scalegate merge`).
     */
    lambda_max_rps: rps('lambda_max_rps').nullable(),
    /** A measured breach (fail) lies above lambda_max. */
    lambda_max_bracketed: schemas_boolean(),
    /** The lowest measured breach above lambda_max. */
    breach_rate_rps: rps('breach_rate_rps').nullable(),
    limits: object({
        max_overflow_fraction: boundedNumber(0, 1, 'max_overflow_fraction'),
        max_error_fraction: boundedNumber(0, 1, 'max_error_fraction'),
    }),
    ladder: object({
        mode: schemas_enum(['adaptive', 'fixed']),
        /** The rates of a fixed ladder (shards run one). */
        rates: array(rps('rate').positive()).nullable(),
        start_rps: rps('start_rps').positive().nullable(),
        max_rps: rps('max_rps').positive().nullable(),
        min_rps: rps('min_rps').positive().nullable(),
        /** Bisect until (breach - lambda_max) <= resolution x breach. */
        resolution: boundedNumber(0, 1, 'resolution').nullable(),
        hold_s: seconds('hold_s').positive(),
        settle_s: seconds('settle_s'),
        /** Seed of rung 0's Poisson schedule; rung i uses seed + i. */
        seed: schemas_number().int().nonnegative(),
        window_ms: schemas_number().int().positive(),
        max_outstanding: schemas_number().int().positive(),
    }),
    search: object({
        /** breach - lambda_max <= resolution x breach; null for a fixed ladder. */
        resolution_met: schemas_boolean().nullable(),
        /** Rates that stayed undecided. */
        undecided_rates: array(rps('rate')),
    }),
    non_monotone: array(safeString),
    /** The shards of the schedule this file holds: [i/n] for one shard, all of 0..n-1 once merged. */
    shards: array(object({ index: schemas_number().int().nonnegative(), count: schemas_number().int().positive() })),
    /** Decided (single process or merged); false for a shard file, whose verdicts are `pending`. */
    decided: schemas_boolean(),
    /** Wall time every shard's first rung started at (--start-at), or null. */
    start_at: isoTime.nullable(),
    frozen: schemas_boolean(),
    instance_counts_observed: array(instances('instance count')),
    rungs: array(goodputRungSchema),
    /** Additive: the hold and settle are at least what the coverage simulations validated (false: shorter). */
    validated_hold: schemas_boolean().optional(),
    provenance: provenanceSchema,
    target: safeString.nullable(),
    prompts: object({ source: safeString, count: schemas_number().int().positive() }),
    request_timeout_s: seconds('request_timeout_s').positive(),
    restore: restoreRecordSchema.nullable(),
    /**
     * Additive: the per-rate CloudWatch join (each rung's metric_level): joined when at least one
     * rate has a level; error says what is missing (the http transport has no CloudWatch, disabled
     * with --no-cloudwatch, not published...). Absent in older files.
     */
    cloudwatch: object({ joined: schemas_boolean(), error: safeString.nullable() }).optional(),
    /**
     * Additive (absent in older files): P(PASS) of one rung whose true p95 equals the SLO, as
     * supported by simulation over the class `basis` names (a bound, not the nominal alpha).
     */
    false_pass_bound: object({ value: boundedNumber(0, 1, 'false_pass_bound'), origin: literal('bound'), basis: safeString })
        .optional(),
});

;// CONCATENATED MODULE: ./src/model/artifacts/plan.ts





/**
 * The largest level a tracked metric can show: concurrency (requests in flight times a ratio) or
 * invocations per minute per instance (60 x the largest plausible rate).
 */
const METRIC_LEVEL_MAX = Math.max(LIMITS.concurrency * LIMITS.ratio, 60 * LIMITS.rps);
const findingVerdictSchema = schemas_enum(['ok', 'warn', 'stop', 'suppressed']);
const findingSchema = object({
    name: safeString,
    verdict: findingVerdictSchema,
    detail: safeString,
    fix: safeString.nullable(),
});
const loadSchema = object({ unit: schemas_enum(['rps', 'streams']), value: rps('load') });
const planInputSchema = object({
    file: safeString,
    run_id: safeString,
    slug: safeString,
    fingerprint: fingerprintSchema,
});
/**
 * The CloudWatch metric the scale-out target tracks (AWS/SageMaker, per endpoint variant):
 * `ConcurrentRequestsPerModel` (Maximum per 10 s period, the high-resolution predefined metric
 * SageMakerVariantConcurrentRequestsPerModelHighResolution) or `InvocationsPerInstance` (Sum per
 * 60 s period, the classic predefined metric SageMakerVariantInvocationsPerInstance).
 */
const SCALING_METRICS = ['ConcurrentRequestsPerModel', 'InvocationsPerInstance'];
const scalingMetricSchema = schemas_enum(SCALING_METRICS);
/** The values `cdk deploy` ships and `validate` compares, under their config names. */
const deployableSchema = object({
    /** The tracked metric; older plans tracked ConcurrentRequestsPerModel. */
    scaling_metric: scalingMetricSchema.default('ConcurrentRequestsPerModel'),
    min_instances: instances('min_instances').positive(),
    max_instances: instances('max_instances').positive(),
    /** In the tracked metric's own units (scaling_metric); null when nothing measured can express it. */
    scaling_target_value: boundedNumber(0, METRIC_LEVEL_MAX, 'scaling_target_value').positive().nullable(),
    scale_in_threshold: boundedNumber(0, METRIC_LEVEL_MAX, 'scale_in_threshold').positive().nullable(),
    queue_max_depth: boundedNumber(1, LIMITS.queue, 'queue_max_depth').int(),
    scale_out_cooldown_s: seconds('scale_out_cooldown_s').int(),
    scale_in_cooldown_s: boundedNumber(0, 3 * LIMITS.seconds * 2, 'scale_in_cooldown_s').int(),
    slo_ms: ms('slo_ms').positive(),
    /** Service-time alarm: measured TTFAB p95 at concurrency 1 (not the SLO). */
    service_time_alarm_ms: ms('service_time_alarm_ms').positive().nullable(),
});
/**
 * Where a plan's region comes from: the measurement (which records it), or, for a legacy
 * measurement that records none, the model config when the plan was made (labelled as such
 * everywhere it is shown); `not recorded` when neither (the gate refuses it).
 */
const REGION_FROM_CONFIG = 'config (the legacy artifact records none)';
const regionSourceSchema = schemas_enum(['measured', REGION_FROM_CONFIG, 'not recorded']);
const probability = schemas_number().min(0).max(1);
/** Where a figure comes from, as every output labels it. */
const figureOriginSchema = schemas_enum(['measured', 'computed', 'bound', 'stated', 'interpolated']);
/**
 * The tracked metric's level at one per-instance Poisson arrival rate: the per-period statistic's
 * median and spread (p10, p90) over periods. `measured` from goodput's CloudWatch join,
 * `interpolated` between measured rates, `computed` by a seeded queueing simulation of one
 * instance (never measured), or `computed` exactly (InvocationsPerInstance: 60 s x the rate).
 */
const metricLevelSchema = object({
    rate_rps: rps('metric level rate_rps'),
    p10: boundedNumber(0, METRIC_LEVEL_MAX, 'metric level p10'),
    p50: boundedNumber(0, METRIC_LEVEL_MAX, 'metric level p50'),
    p90: boundedNumber(0, METRIC_LEVEL_MAX, 'metric level p90'),
    origin: figureOriginSchema,
    /** How: `goodput CloudWatch join`, `queueing simulation (seed 1, 2000 periods)`, `60 s x rate`. */
    method: safeString,
});
/**
 * One candidate policy: a tracked metric, the surge-safe per-instance rate its detection speed
 * allows, and the deployable values that hold each instance there.
 */
const policyCandidateSchema = object({
    metric: scalingMetricSchema,
    statistic: schemas_enum(['Maximum', 'Sum']),
    period_s: seconds('candidate period_s').int().positive(),
    policy_lag_s: seconds('candidate policy_lag_s'),
    policy_lag_origin: schemas_enum(['measured', 'computed', 'bound']),
    t_plan_s: seconds('candidate t_plan_s'),
    /** Highest per-instance Poisson rate from which a k surge overflows within T_plan with probability <= max_overflow_probability. */
    lambda_safe_rps: rps('lambda_safe_rps'),
    /** What bounds lambda_safe: the surge, goodput's lambda_max, or the SLO after the surge's queue built. */
    lambda_safe_bound: schemas_enum(['surge', 'lambda_max', 'slo']),
    /** lambda_safe / the instance's capacity (its highest measured throughput). */
    throughput_share: schemas_number().min(0).max(1),
    surge_overflow_probability: probability,
    baseline_overflow_probability: probability,
    /** p95 TTFAB an arrival sees at the end of T_plan under the surge (computed from the ladder). */
    surge_p95_ttfab_ms: ms('surge_p95_ttfab_ms').nullable(),
    target: metricLevelSchema,
    scale_in_rate_rps: rps('scale_in_rate_rps'),
    scale_in: metricLevelSchema,
    /** The scale-in alarm's threshold (its period's level at scale_in_rate_rps, see docs). */
    scale_in_threshold: boundedNumber(0, METRIC_LEVEL_MAX, 'candidate scale_in_threshold'),
    target_value: boundedNumber(0, METRIC_LEVEL_MAX, 'candidate target_value'),
    peak_instances: instances('candidate peak_instances'),
    trough_instances: instances('candidate trough_instances'),
    cost_per_hour_usd: boundedNumber(0, LIMITS.usd * LIMITS.instances, 'cost_per_hour_usd').nullable(),
    /** Overflow within tolerance with and without the surge. */
    holds: schemas_boolean(),
});
/** The closed-loop rule the first version deployed, kept as a labelled comparison. */
const seedRuleSchema = object({
    target_value: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'seed target_value').nullable(),
    scale_in_threshold: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'seed scale_in_threshold').nullable(),
    c_scale_max: schemas_number(),
    rate_rps: rps('seed rate_rps'),
    throughput_share: schemas_number().min(0).max(1),
    surge_overflow_probability: probability,
    baseline_overflow_probability: probability,
    peak_instances: instances('seed peak_instances'),
    cost_per_hour_usd: boundedNumber(0, LIMITS.usd * LIMITS.instances, 'seed cost_per_hour_usd').nullable(),
    holds: schemas_boolean(),
});
/** How the deployed policy was chosen: the candidates side by side, the chosen one, the seed's rule. */
const policyChoiceSchema = object({
    chosen_metric: scalingMetricSchema,
    /** One sentence: why this metric and target. */
    reason: safeString,
    max_overflow_probability: probability,
    candidates: array(policyCandidateSchema).min(1).max(4),
    seed_rule: seedRuleSchema,
});
/**
 * The surge overflow probability at the deployed rate, recomputed with each uncertain input at its
 * unfavourable bound and with all of them together: `low` is the plan's own figure, `high` the
 * worst of them.
 */
const surgeSensitivitySchema = object({
    rate_rps: rps('surge_sensitivity rate_rps'),
    nominal: probability,
    low: probability,
    high: probability,
    method: safeString,
    items: array(object({
        vary: schemas_enum(['throughput_low', 'q_max_low', 't_plan_high', 'all']),
        /** null: not available (T_plan has no upper bound from a single observation). */
        probability: probability.nullable(),
        exact: schemas_boolean(),
        used: safeString,
    })),
});
const planArtifactSchema = object({
    schema_version: literal(SCHEMA_VERSION),
    kind: literal('plan'),
    model_name: safeString,
    run_id: runId,
    created_at: recordedAt,
    verdict: schemas_enum(['ok', 'warn', 'stop']),
    warn_count: schemas_number().int().nonnegative().max(1000),
    /** The measurement's fingerprint: what this plan may be deployed onto (its region: see region_source). */
    fingerprint: fingerprintSchema,
    region_source: regionSourceSchema.default('measured'),
    inputs: object({
        qmax: planInputSchema,
        ttotal: planInputSchema.nullable(),
        t_total_stated_s: seconds('t_total_stated_s').positive().nullable(),
        config_mismatch_allowed: schemas_boolean(),
        mismatch_warnings: array(safeString),
        /** `plan --drill`: the drill whose measured policy lag replaced the computed or bounded one. */
        drill: planInputSchema.nullable().optional(),
        /** The goodput measurement (lambda_max), when the plan was given one; absent in older plans. */
        goodput: planInputSchema.nullable().optional(),
    }),
    chosen: object({
        slo_ms: ms('slo_ms').positive(),
        surge_ratio: boundedNumber(1, 1.5, 'surge_ratio'),
        peak: loadSchema,
        trough: loadSchema,
        min_instances_floor: instances('min_instances_floor').positive(),
        invocation_ceiling_s: seconds('invocation_ceiling_s').positive(),
        instance_hourly_usd: boundedNumber(0, LIMITS.usd, 'instance_hourly_usd').positive().nullable(),
        instance_quota: instances('instance_quota').positive().nullable(),
        /** The model config's region, taken for a legacy measurement that records none; null otherwise. */
        legacy_region: safe_regionSchema.nullable().default(null),
        /**
         * Which rule the deployable values follow: `surge-safe` (the operating point: lambda_safe in
         * the tracked metric's own units) or `seed` (the closed-loop rule (1 - h) Q_max, kept for
         * comparison drills). Absent in older plans, which followed the seed's rule.
         */
        policy_rule: schemas_enum(['surge-safe', 'seed']).default('seed'),
        /** Overflow probability within T_plan the policy may carry (config max_overflow_probability). */
        max_overflow_probability: schemas_number().gt(0).lt(0.5).default(0.05),
    }),
    measured: object({
        q_max: concurrency('q_max').int(),
        q_max_bracketed: schemas_boolean(),
        s_mean_s: seconds('s_mean_s'),
        s_p95_s: seconds('s_p95_s'),
        ttfab_p95_at_c1_ms: ms('ttfab_p95_at_c1_ms').nullable(),
        t_total_s: seconds('t_total_s').positive(),
        /** `lower-bound`: the ttotal ended at in_service (traffic never recovered); older plans said `measured`. */
        /** `bound`: the upper prediction bound of a repeated ttotal (see t_total_provenance). */
        t_total_origin: schemas_enum(['measured', 'stated', 'lower-bound', 'bound']),
        policy_lag_s: seconds('policy_lag_s'),
        policy_lag_bounded: schemas_boolean(),
        /**
         * `computed` from the deployed alarms (publication delay assumed), the 60 s `bound`, or
         * `measured` by a surge drill. Absent in older plans (then: bound when policy_lag_bounded, else computed).
         */
        policy_lag_origin: schemas_enum(['measured', 'computed', 'bound']).optional(),
        cw_ratio: boundedNumber(0, LIMITS.ratio, 'cw_ratio').positive().nullable(),
        cw_ratio_rung: concurrency('cw_ratio_rung').int().positive().nullable(),
        // Additive (goodput): absent in older plans, null without a goodput artifact.
        /** Highest Poisson arrival rate per instance inside the SLO (open loop). */
        lambda_max_rps: rps('lambda_max_rps').nullable().optional(),
        /** lambda_max is bracketed by a measured breach (else a lower bound). */
        lambda_max_bracketed: schemas_boolean().nullable().optional(),
        // Additive (uncertainty carried into the plan); absent in older plans.
        /** How T_total is labelled: `bound (upper 90 % prediction, n=3)`, `measured, single observation`, ... */
        t_total_provenance: safeString.optional(),
        /** Every T_total the ttotal artifact observed (one per scale-out). */
        t_total_observations_s: array(schemas_number().positive()).optional(),
        /** How the policy lag is labelled (a drill's bound over several scale-outs, or its single one). */
        policy_lag_provenance: safeString.optional(),
        /** How Q_max is labelled: `measured, bracketed`, or a POINT ESTIMATE for a legacy rung. */
        q_max_provenance: safeString.optional(),
        /** The rung at Q_max passed on a valid interval (false: a legacy point estimate). */
        q_max_interval_decided: schemas_boolean().optional(),
        /** The ladders' holds are at least what the coverage simulations validated (false: shorter). */
        validated_hold: schemas_boolean().optional(),
        /** Which hold was short, or that they were not. */
        validated_hold_detail: safeString.optional(),
        /** Where the ladder's load came from, with its RTT floor (the qmax's); absent when not recorded. */
        vantage: vantageSchema.optional(),
    }),
    derived: object({
        t_plan_s: schemas_number(),
        h: schemas_number(),
        c_scale_max: schemas_number(),
        c_scale_min: schemas_number(),
        r: schemas_number().nullable(),
        min_safe_instances: schemas_number().int().nullable(),
        w_max_s: schemas_number(),
        x_target_rps: schemas_number().nullable(),
        peak_instances: instances('peak_instances'),
        trough_instances: instances('trough_instances'),
        naive_peak_instances: schemas_number().int().nonnegative().nullable(),
        surge_overflow_probability: schemas_number().min(0).max(1).nullable(),
        surge_fluid_overflow_s: schemas_number().nullable(),
        // Additive (exact surge computation); absent in older plans.
        /** The same overflow probability with no surge (k = 1): what the target alone does. */
        surge_baseline_overflow_probability: schemas_number().min(0).max(1).nullable().optional(),
        /** `uniformization` (exact to 1e-9), or `uniformization-lower-bound` when the work budget ran out. */
        surge_method: schemas_string().nullable().optional(),
        /** In-flight requests the surge and fluid runs start from: round(C_scale_max). */
        surge_start_in_flight: schemas_number().int().nonnegative().nullable().optional(),
        /** lambda_max / X_target - 1: negative when random arrivals at the target break the SLO. */
        open_loop_headroom: schemas_number().nullable().optional(),
        /** The concurrency whose measured throughput is lambda_max (the target that leaves that headroom). */
        open_loop_concurrency_target: schemas_number().nonnegative().nullable().optional(),
        /**
         * The chosen policy's surge-safe per-instance rate (what the fleet is sized for and a drill's
         * steady phase offers per instance); absent in older plans (they sized at x_target_rps).
         */
        lambda_safe_rps: rps('lambda_safe_rps').nullable().optional(),
        /** X_target is read on the throughput curve between measured rungs (`interpolated`) or at one. */
        x_target_origin: schemas_enum(['measured', 'interpolated']).optional(),
        /** The surge overflow probability's sensitivity band (deployed surge-safe policy); absent in older plans. */
        surge_sensitivity: surgeSensitivitySchema.nullable().optional(),
    }),
    deployable: deployableSchema,
    /** How the deployed policy was chosen; absent in older plans (the closed-loop rule). */
    policy: policyChoiceSchema.nullable().optional(),
    findings: array(findingSchema),
    provenance: provenanceSchema,
    /** `plan --drill`: what the plan predicted for a surge against what the drill observed. */
    drill_comparison: object({
        drill_run_id: safeString,
        drilled_plan_run_id: safeString,
        verdict: schemas_enum(['pass', 'fail']),
        surge_ratio: boundedNumber(1, 2, 'drill surge_ratio'),
        policy_lag_predicted_s: seconds('policy_lag_predicted_s'),
        policy_lag_predicted_origin: schemas_enum(['measured', 'computed', 'bound']),
        policy_lag_observed_s: seconds('policy_lag_observed_s'),
        t_plan_predicted_s: seconds('t_plan_predicted_s'),
        surge_overflow_predicted: schemas_number().min(0).max(1).nullable(),
        surge_overflow_observed: schemas_boolean(),
        overflows_observed: schemas_number().int().nonnegative(),
        broken_windows: schemas_number().int().nonnegative(),
        slo_recovered_s: seconds('slo_recovered_s').nullable(),
        // Additive: absent in older plans; null for a drill that predates the SLO verdict.
        /** Every full steady and surge window of the drill held the SLO (the drill's verdict). */
        slo_held: schemas_boolean().nullable().optional(),
        /** No window of the drill beyond what the plan predicted. */
        as_predicted: schemas_boolean().nullable().optional(),
    })
        .nullable()
        .optional(),
});

;// CONCATENATED MODULE: ./src/model/artifacts/qmax.ts







const qmaxStepSchema = object({
    run_index: schemas_number().int().nonnegative(),
    step_index: schemas_number().int().nonnegative(),
    concurrency: concurrency('concurrency').int().positive(),
    started_at: isoTime.nullable(),
    hold_s: seconds('hold_s').nullable(),
    measure_s: seconds('measure_s').nullable(),
    achieved_rps: rps('achieved_rps'),
    completed: count('completed'),
    ok: count('ok'),
    rejected: count('rejected'),
    outcome_counts: partialRecord(outcomeSchema, count('outcome count')),
    ttfab_p50_ms: ms('ttfab_p50_ms').nullable(),
    ttfab_p95_ms: ms('ttfab_p95_ms').nullable(),
    /**
     * Confidence interval of the p95 of successful requests at `ci_level` (batch sectioning, valid for
     * closed-loop data; before `decision_method` was recorded: order statistics assuming independent
     * samples); null when too few batches.
     */
    ttfab_p95_ci_ms: intervalSchema.nullable(),
    ttfab_p99_ms: ms('ttfab_p99_ms').nullable(),
    latency_p95_ms: ms('latency_p95_ms').nullable(),
    s_mean_s: seconds('s_mean_s').nullable(),
    s_p95_s: seconds('s_p95_s').nullable(),
    concurrency_mean: concurrency('concurrency_mean'),
    concurrency_peak: concurrency('concurrency_peak'),
    ttfab_drift_ms: boundedNumber(-LIMITS.ms, LIMITS.ms, 'ttfab_drift_ms').nullable(),
    verdict: rungVerdictSchema,
    meets_slo: schemas_boolean(),
    saturated: schemas_boolean(),
    settled: schemas_boolean(),
    client_bound: schemas_boolean(),
    capacity_changed: schemas_boolean(),
    usable: schemas_boolean(),
    unusable_reason: safeString.nullable(),
    instance_counts: array(instances('instance count')),
    server_concurrency_mean: concurrency('server_concurrency_mean').nullable(),
    server_concurrency_peak: concurrency('server_concurrency_peak').nullable(),
    server_model_latency_p95_ms: ms('server_model_latency_p95_ms').nullable(),
    server_5xx_total: boundedNumber(0, LIMITS.count, 'server_5xx_total').nullable(),
    /** R(N): CloudWatch ConcurrentRequestsPerModel Maximum / client mean in-flight. */
    cw_ratio: boundedNumber(0, LIMITS.ratio, 'cw_ratio').positive().nullable(),
    // Additive (qmax engine): why the verdict, how the rung ended, and how trustworthy the client was.
    verdict_reason: safeString.nullable().optional(),
    /**
     * `decisive`: ended early on a settled, decisive window; `near_slo`: ended early undecided, its
     * interval inside +-5 % of the SLO (futility); `hold`: ran to its hold limit.
     */
    end_reason: schemas_enum(['decisive', 'near_slo', 'hold']).nullable().optional(),
    /** 1 - client mean in-flight / concurrency over the window (0 = exactly N outstanding throughout). */
    in_flight_shortfall: schemas_number().nonnegative().nullable().optional(),
    client_loop_delay_p99_ms: schemas_number().nonnegative().nullable().optional(),
    /** Share of the rung the client's event loop was busy (near 1: the client limits the load). */
    client_event_loop_utilization: schemas_number().min(0).max(1).nullable().optional(),
    /** Whole 10 s CloudWatch periods inside the measure window that the join used. */
    cw_periods: schemas_number().int().nonnegative().nullable().optional(),
    // Additive (rung decision valid for closed-loop data); absent in older artifacts.
    /** How the verdict was reached: `batch-sectioning` (src/stats/rung-decision.ts). */
    decision_method: safeString.nullable().optional(),
    /** Two-sided confidence of the reported interval at the look the rung ended on. */
    ci_level: schemas_number().min(0).max(1).nullable().optional(),
    /** Confidence that the intervals of every look of the rung hold together (Bonferroni). */
    ci_family_level: schemas_number().min(0).max(1).nullable().optional(),
    /** Effective sample size: the number of batches (0 when too few for an interval). */
    effective_sample_size: schemas_number().int().nonnegative().nullable().optional(),
    /** Mean batch length, samples. */
    batch_size: schemas_number().nonnegative().nullable().optional(),
    /** Looks the rung took (the verdict is the last one's). */
    looks: schemas_number().int().nonnegative().nullable().optional(),
    /** Samples the verdict judged, misses included. */
    verdict_samples: schemas_number().int().nonnegative().nullable().optional(),
    /** Undecided with its interval inside +-5 % of the SLO (not measured again); absent before. */
    near_slo: schemas_boolean().nullable().optional(),
    /** One-sided alphas of the look the rung ended on (pass side = upper end); absent before. */
    ci_tails: object({ pass: schemas_number().min(0).max(1), fail: schemas_number().min(0).max(1) })
        .nullable()
        .optional(),
    /** Dependence checks of the look the rung ended on (src/stats/rung-decision.ts); absent before. */
    dependence: object({
        /** Batches the sample count allowed before any lengthening. */
        initial_batches: schemas_number().int().nonnegative(),
        /** Times the batches were doubled because their p95s were dependent. */
        lengthened: schemas_number().int().nonnegative(),
        /** von Neumann ratio of the batch p95s used and its critical value (below: dependent). */
        von_neumann: schemas_number().nonnegative().nullable(),
        von_neumann_critical: schemas_number().nullable(),
        /** se from half as many batches of twice the size / se from the batches used. */
        half_batch_se_ratio: schemas_number().nonnegative().nullable(),
        /** false: dependent even at 5 batches, so the look could not be decisive. */
        independent: schemas_boolean(),
    })
        .nullable()
        .optional(),
    /** Additive: the client during the rung (a pass it could not keep the schedule for is undecided). */
    client_health: clientHealthSchema.nullable().optional(),
});
const ladderSchema = object({
    mode: schemas_enum(['adaptive', 'fixed']),
    rungs: array(concurrency('rung').int().positive()).nullable(),
    max_concurrency: concurrency('max_concurrency').int().positive().nullable(),
    resolution: concurrency('resolution').int().positive().nullable(),
    hold_s: seconds('hold_s'),
    measure_s: seconds('measure_s'),
    /** null when the source did not record it (legacy). */
    settle_s: seconds('settle_s').nullable(),
    runs: boundedNumber(1, 1000, 'runs').int(),
});
const qmaxArtifactSchema = object({
    schema_version: literal(SCHEMA_VERSION),
    kind: literal('qmax'),
    model_name: safeString,
    endpoint: endpointNameSchema.nullable(),
    run_id: runId,
    measured_at: recordedAt,
    fingerprint: fingerprintSchema,
    /** Where the load came from (runner, region, host, RTT floor); absent in artifacts written before it was recorded. */
    vantage: vantageSchema.optional(),
    transport: transportSchema,
    slo_ms: ms('slo_ms').positive(),
    /** Highest passing concurrency; 0 when even concurrency 1 misses the SLO. */
    q_max: concurrency('q_max').int(),
    q_max_per_run: array(concurrency('q_max_per_run').int()),
    q_max_bracketed: schemas_boolean(),
    /** Lowest concurrency measured above the SLO (the bracket), null when none was. */
    q_max_upper_bound: concurrency('q_max_upper_bound').int().positive().nullable(),
    ttfab_p95_at_q_max_ms: ms('ttfab_p95_at_q_max_ms').nullable(),
    ttfab_p95_at_c1_ms: ms('ttfab_p95_at_c1_ms').nullable(),
    s_mean_s: seconds('s_mean_s'),
    s_p95_s: seconds('s_p95_s'),
    frozen: schemas_boolean(),
    unbounded_queue: schemas_boolean(),
    instance_counts_observed: array(instances('instance count')),
    non_monotone: array(safeString),
    ladder: ladderSchema,
    total_rung_seconds: boundedNumber(0, LIMITS.seconds * 1000, 'total_rung_seconds').nullable(),
    cloudwatch: object({ joined: schemas_boolean(), error: safeString.nullable() }),
    steps: array(qmaxStepSchema).min(1),
    provenance: provenanceSchema,
    // Additive (qmax engine): what was driven, with what, and what the freeze restored.
    target: safeString.nullable().optional(),
    prompts: object({ source: safeString, count: schemas_number().int().positive() }).nullable().optional(),
    request_timeout_s: seconds('request_timeout_s').positive().nullable().optional(),
    restore: restoreRecordSchema.nullable().optional(),
    /** Where the search ended against what it promised; absent in older artifacts. */
    search: object({
        /** Lowest measured breach above Q_max (a fail, never an undecided rung); null: none. */
        upper_bound: schemas_number().int().positive().nullable(),
        /** The requested --resolution (adaptive); null for a fixed ladder. */
        resolution: schemas_number().int().positive().nullable(),
        /** upper_bound - Q_max <= resolution; false when not bracketed or stopped short; null: fixed. */
        resolution_met: schemas_boolean().nullable(),
        /** Concurrencies that stayed undecided (after their one re-measurement). */
        undecided_rungs: array(schemas_number().int().positive()),
    })
        .nullable()
        .optional(),
    /**
     * What a PASS verdict promises, as simulated: P(PASS | true p95 = SLO) <= bound and coverage of
     * the reported interval >= coverage, over the class of simulated servers named. Absent in older
     * artifacts (they stated only nominal levels).
     */
    false_pass_bound: object({
        /** Pooled over the cells of the class. */
        bound: schemas_number().min(0).max(1),
        /** The worst cell of the class. */
        worst_cell: schemas_number().min(0).max(1),
        coverage: schemas_number().min(0).max(1),
        worst_cell_coverage: schemas_number().min(0).max(1),
        decision_method: safeString,
        calibrated_over: safeString,
    })
        .nullable()
        .optional(),
    /** The rung S_mean/S_p95 come from; absent in older artifacts. */
    service_time_basis: object({
        concurrency: schemas_number().int().positive(),
        /** false: no usable rung had latencies, so an unusable one was taken. */
        usable: schemas_boolean(),
        /** true: not a usable rung at concurrency 1 (not the uncontended service time). */
        fallback: schemas_boolean(),
        /** Why concurrency 1 was not used; null when it was. */
        reason: safeString.nullable(),
    })
        .nullable()
        .optional(),
});

;// CONCATENATED MODULE: ./src/model/artifacts/ttotal.ts





const ttotal_ttotalStageNames = (/* unused pure expression or super */ null && ([
    'load_applied',
    'desired_set',
    'instance_logging',
    'container_started',
    'framework_init',
    'weights_ready',
    'warmup_done',
    'ready',
    'in_service',
    'traffic_recovered',
]));
const timelineEntrySchema = object({
    stage: safeString,
    at: isoTime,
    source: safeString,
    /** true when `at` is an upper bound or a reconstruction, not an exact observation. */
    bounded: schemas_boolean(),
    note: safeString.nullable(),
});
const durationSchema = object({
    from: safeString,
    to: safeString,
    seconds: signedSeconds('seconds'),
    bounded: schemas_boolean(),
    /** Share of T_total; null for stages outside it. */
    share: boundedNumber(-1000, 1000, 'share').nullable(),
});
/** One scale-out of a repeated ttotal (`--repeat n`): its T_total and every stage it went through. */
const ttotalObservationSchema = object({
    index: schemas_number().int().nonnegative(),
    measured_at: recordedAt,
    t_total_s: seconds('t_total_s').positive(),
    t_total_end_stage: safeString.nullable(),
    instance_id: safeString.nullable(),
    from_instances: instances('from_instances'),
    to_instances: instances('to_instances').positive(),
    p95_before_ms: ms('p95_before_ms').nullable(),
    p95_after_ms: ms('p95_after_ms').nullable(),
    requests_before: schemas_number().int().nonnegative().nullable(),
    requests_after: schemas_number().int().nonnegative().nullable(),
    timeline: array(timelineEntrySchema),
    durations: array(durationSchema),
    dominant_stage: object({ from: safeString, to: safeString, seconds: signedSeconds('seconds') })
        .nullable(),
    missing_stages: array(safeString),
    notes: array(safeString),
});
/** The upper prediction bound for the next T_total, from the repeated observations. */
const predictionBoundSchema = object({
    n: schemas_number().int().positive(),
    level: schemas_number().gt(0).lt(1),
    /** null: not available (a single observation, or an observation that is only a lower bound). */
    upper_s: seconds('upper_s').positive().nullable(),
    method: schemas_enum(['log-normal-t', 'order-statistic']).nullable(),
    description: safeString,
});
const ttotalArtifactSchema = object({
    schema_version: literal(SCHEMA_VERSION),
    kind: literal('ttotal'),
    model_name: safeString,
    endpoint: endpointNameSchema.nullable(),
    run_id: runId,
    measured_at: recordedAt,
    fingerprint: fingerprintSchema,
    /** Where the probe came from (runner, region, host, RTT floor); absent in artifacts written before it was recorded. */
    vantage: vantageSchema.optional(),
    transport: transportSchema.nullable(),
    trigger: schemas_enum(['force-desired', 'policy']),
    qmax_run_id: safeString.nullable(),
    t_total_s: seconds('t_total_s').positive(),
    policy_lag_s: seconds('policy_lag_s'),
    /** true: policy_lag_s is a bound (no deployed policy to read), never a measurement. */
    policy_lag_bounded: schemas_boolean(),
    policy_lag_source: safeString,
    instance_id: safeString.nullable(),
    from_instances: instances('from_instances'),
    to_instances: instances('to_instances').positive(),
    probe_concurrency: concurrency('probe_concurrency').int().positive().nullable(),
    p95_before_ms: ms('p95_before_ms').nullable(),
    p95_recovered_target_ms: ms('p95_recovered_target_ms').nullable(),
    p95_after_ms: ms('p95_after_ms').nullable(),
    timeline: array(timelineEntrySchema),
    durations: array(durationSchema),
    dominant_stage: object({ from: safeString, to: safeString, seconds: signedSeconds('seconds') })
        .nullable(),
    missing_stages: array(safeString),
    notes: array(safeString),
    provenance: provenanceSchema,
    // Optional (absent in legacy artifacts and in those written before they existed):
    /** The stage T_total ends at: traffic_recovered, or in_service when traffic never recovered (a lower bound). */
    t_total_end_stage: safeString.optional(),
    /** The measured qmax's fingerprint differed from the live one and --allow-config-mismatch was given. */
    config_mismatch_allowed: schemas_boolean().optional(),
    mismatch_warnings: array(safeString).optional(),
    /** Completed probe requests before the trigger and in the recovery window. */
    requests_before: schemas_number().int().nonnegative().nullable().optional(),
    requests_after: schemas_number().int().nonnegative().nullable().optional(),
    /** What the run used, so a reader can judge the bounds (window, poll interval, ...). */
    settings: object({
        probe_concurrency: schemas_number().int().positive(),
        recovery_window_s: schemas_number().positive(),
        recovery_min_samples: schemas_number().int().positive(),
        recovery_target_factor: schemas_number().positive(),
        poll_s: schemas_number().positive(),
        max_wait_s: schemas_number().positive(),
        pre_trigger_s: schemas_number().nonnegative(),
        publication_delay_s: schemas_number().nonnegative().nullable(),
        /** Scale-outs timed in the run (`--repeat`); absent: 1. */
        repeat: schemas_number().int().positive().optional(),
    })
        .optional(),
    /** Quota headroom seen in the preflight (null fields when unknown). */
    quota: object({
        quota_name: safeString.nullable(),
        quota_value: schemas_number().nullable(),
        instances_in_use: schemas_number().int().nonnegative().nullable(),
        source: safeString,
    })
        .optional(),
    /** What was put back after the run: desired count and suspension flags (from the thaw journal). */
    restore: journalRestoreRecordSchema.optional(),
    /**
     * Every scale-out of the run in the order they ran (absent in artifacts from before `--repeat`:
     * one scale-out, the top-level fields). The top-level timeline is the representative one (the
     * median T_total, or the first lower bound).
     */
    observations: array(ttotalObservationSchema).optional(),
    /** Upper prediction bound for the next T_total from the observations; absent in older artifacts. */
    t_total_prediction: predictionBoundSchema.optional(),
});

;// CONCATENATED MODULE: ./src/model/artifacts/validate.ts





const validateArtifactSchema = object({
    schema_version: literal(SCHEMA_VERSION),
    kind: literal('validate'),
    model_name: safeString,
    endpoint: endpointNameSchema,
    region: safe_regionSchema,
    run_id: runId,
    checked_at: recordedAt,
    verdict: schemas_enum(['clean', 'mismatch']),
    plan: object({
        file: safeString,
        run_id: safeString,
        /** The plan's fingerprint (what it may be deployed onto); absent in validates written before it was recorded. */
        fingerprint: fingerprintSchema.optional(),
    }),
    rows: array(comparisonRowSchema),
});

;// CONCATENATED MODULE: ./src/model/artifacts.ts














const artifactSchemas = {
    qmax: qmaxArtifactSchema,
    ttotal: ttotalArtifactSchema,
    goodput: goodputArtifactSchema,
    plan: planArtifactSchema,
    drift: driftArtifactSchema,
    validate: validateArtifactSchema,
};
/** The command that writes each kind, for error messages that say how to get a valid file. */
const producerOf = {
    qmax: 'scalegate qmax',
    ttotal: 'scalegate ttotal',
    goodput: 'scalegate goodput',
    plan: 'scalegate plan',
    drift: 'scalegate drift',
    validate: 'scalegate validate',
};

;// CONCATENATED MODULE: ./src/model/issues.ts
/** One line per problem, `field.path: message`, so a user can find the field in the file. */
function issues_formatZodIssues(error) {
    return error.issues
        .map((issue) => {
        const path = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
        return `  - ${path}: ${issue.message}`;
    })
        .join('\n');
}

;// CONCATENATED MODULE: ./src/model/config.ts






const config_CONFIG_FILE = 'scalegate.config.json';
/** Load is stated either as requests per second or as concurrent streams, never both. */
const loadFields = {
    peak_rps: boundedNumber(0, LIMITS.rps, 'peak_rps').positive().optional(),
    peak_streams: boundedNumber(0, LIMITS.rps, 'peak_streams').positive().optional(),
    trough_rps: boundedNumber(0, LIMITS.rps, 'trough_rps').optional(),
    trough_streams: boundedNumber(0, LIMITS.rps, 'trough_streams').optional(),
};
/**
 * Where the model's calibration copy lives, when not beside production: another account (the
 * strongest separation: a pull request's deploy role there reaches nothing of production) and/or
 * another region. Omitted fields mean "the same as production". A measurement records its region,
 * so a calibration region other than the model's gives plans the gate refuses for production:
 * move the account, keep the region, unless you mean to re-measure in production's region.
 */
const calibrationPlacementSchema = object({
    account: schemas_string()
        .regex(/^[0-9]{12}$/, 'a 12-digit AWS account id')
        .optional(),
    region: safe_regionSchema.optional(),
})
    .strict();
const modelConfigSchema = object({
    // `<endpoint>-calibration` must also be a valid name: 63 - 12 characters at most.
    endpoint: endpointNameSchema.max(51, 'at most 51 characters, so that <endpoint>-calibration is a valid name'),
    variant: variantNameSchema.default('AllTraffic'),
    region: safe_regionSchema,
    instance_type: schemas_string().regex(/^ml\.[a-z0-9]+\.[a-z0-9]+$/, 'an instance type such as ml.g5.xlarge'),
    /** Directory with the model's Dockerfile; its CDK asset hash is the image digest. */
    container_dir: safeString.min(1).optional(),
    /** An image built elsewhere, pinned by digest (`...@sha256:<hex>`). */
    image_uri: safeString.min(1).optional(),
    container_env: record(safeString, safeString).default({}),
    /**
     * What a request to the container looks like (default: `{"text": ...}` as application/json,
     * accepting audio/wav): `body_template` is JSON with `{{text}}` where the prompt goes (inserted
     * JSON-escaped) or `jsonl` (each line of the prompts file sent as it is). The load flags
     * `--body-template`, `--content-type`, `--accept` override it for one run.
     */
    request: requestConfigSchema.optional(),
    slo_ms: boundedNumber(0, LIMITS.ms, 'slo_ms').positive(),
    surge_ratio: schemas_number().min(1).lt(1.5),
    ...loadFields,
    min_instances_floor: boundedNumber(1, LIMITS.instances, 'min_instances_floor').int().default(1),
    /** Hard limit of one invocation, seconds (SageMaker real-time: 60). */
    invocation_ceiling_s: boundedNumber(0, LIMITS.seconds, 'invocation_ceiling_s').positive().default(60),
    /** Optional: on-demand price of one instance-hour, for the fleet_cost finding. */
    instance_hourly_usd: boundedNumber(0, LIMITS.usd, 'instance_hourly_usd').positive().optional(),
    /** Optional: the account's endpoint-usage quota for the instance type, for quota_headroom. */
    instance_quota: boundedNumber(1, LIMITS.instances, 'instance_quota').int().optional(),
    /** Optional: where the calibration copy lives (default: production's account and region). */
    calibration: calibrationPlacementSchema.optional(),
    /**
     * The overflow probability within T_plan the deployed policy may carry, with the configured
     * surge and without one: the plan's operating point is the highest per-instance rate within
     * it, and a policy above it is a stop.
     */
    max_overflow_probability: schemas_number().gt(0).lt(0.5).default(0.05),
    /** The release gate also requires a drill of the plan whose SLO held (`scalegate drill`, slo_held). */
    require_drill: schemas_boolean().default(false),
})
    .strict()
    .superRefine((model, ctx) => {
    if (!model.container_dir && !model.image_uri) {
        ctx.addIssue({
            code: 'custom',
            message: 'set container_dir (built by the CDK) or image_uri (pinned by digest)',
        });
    }
    if (model.container_dir && model.image_uri) {
        ctx.addIssue({ code: 'custom', message: 'set only one of container_dir and image_uri' });
    }
    if (model.peak_rps !== undefined && model.peak_streams !== undefined) {
        ctx.addIssue({
            code: 'custom',
            path: ['peak_streams'],
            message: 'state peak load as peak_rps or peak_streams, not both',
        });
    }
    if (model.trough_rps !== undefined && model.trough_streams !== undefined) {
        ctx.addIssue({
            code: 'custom',
            path: ['trough_streams'],
            message: 'state trough load as trough_rps or trough_streams, not both',
        });
    }
});
const configSchema = object({
    $schema: safeString.optional(),
    models: record(schemas_string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a lower-case model name'), modelConfigSchema),
})
    .strict();
/** Parses config text; `file` names the source in every message. */
function parseConfig(text, file) {
    let json;
    try {
        json = JSON.parse(text);
    }
    catch (e) {
        throw errors_usage `${file}: not valid JSON (${e.message}). Fix the file or name another with ${errors_opt('config')}.`;
    }
    const parsed = configSchema.safeParse(json);
    if (!parsed.success) {
        throw errors_usage `${file}: invalid scalegate config:\n${issues_formatZodIssues(parsed.error)}`;
    }
    return parsed.data;
}
function modelFromConfig(config, name, file) {
    const names = Object.keys(config.models);
    if (name === undefined) {
        if (names.length === 1)
            return [names[0], config.models[names[0]]];
        throw errors_usage `${file} declares ${names.length} models (${names.join(', ')}): choose one with ${errors_opt('model')}.`;
    }
    const model = config.models[name];
    if (!model) {
        throw errors_usage `${errors_opt('model', name)}: no such model in ${file} (declared: ${names.join(', ') || 'none'}).`;
    }
    return [name, model];
}
/** Reads and validates a config file; a missing or unreadable file is a UsageError naming it. */
function readConfigFile(file) {
    let text;
    try {
        text = (0,external_node_fs_namespaceObject.readFileSync)(file, 'utf8');
    }
    catch (e) {
        const missing = e.code === 'ENOENT';
        throw missing
            ? errors_usage `${file}: no such config file. Create ${config_CONFIG_FILE} (see docs/config.md) or name another with ${errors_opt('config')}.`
            : errors_usage `${file}: cannot read (${e.message}).`;
    }
    return parseConfig(text, file);
}
/** The model a command acts on, from the config file (flags and inputs override the config). */
function loadModelContext(selection, env = process.env) {
    const configFile = selection.configFile ?? config_CONFIG_FILE;
    const config = readConfigFile(configFile);
    const [modelName, model] = modelFromConfig(config, selection.modelName, configFile);
    return {
        config,
        configFile,
        modelName,
        model,
        endpoint: selection.endpoint ?? model.endpoint,
        variant: model.variant,
        // Given first; then the standard SDK environment (so AWS_REGION=local reaches the emulator); then config.
        region: selection.region ?? env.AWS_REGION ?? model.region,
    };
}

;// CONCATENATED MODULE: ./src/model/direct-target.ts
/**
 * A container measured directly (`qmax --target URL`) when the config names no model for it: the
 * neutral model its measurement is recorded under.
 */



/** The instance type and image digest a direct measurement with no model records: nothing is claimed. */
const DIRECT_TARGET_INSTANCE_TYPE = 'ml.unknown.direct';
const DIRECT_TARGET_IMAGE_DIGEST = 'unknown';
/**
 * The model a container measured directly (`qmax --target URL`) is recorded under when the config
 * names none for it (it declares several, or there is no config): a neutral name from the target
 * (`direct-<host>-<port>`), and nothing of any configured model claimed: instance type
 * `ml.unknown.direct`, image digest `unknown`, region `local`. The SLO must be given.
 */
function directTargetContext(target, sloMs) {
    let url;
    try {
        url = new URL(target);
    }
    catch {
        throw usage `${opt('target', target)}: not a URL; give the container as http://HOST:PORT.`;
    }
    if (sloMs === undefined) {
        throw usage `${opt('target')} without ${opt('model')}: no model of the config gives the SLO; state it with ${opt('slo-ms')}.`;
    }
    const host = url.hostname
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '') || 'host';
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const modelName = `direct-${host}-${port}`.slice(0, 51).replace(/-+$/, '');
    const model = {
        endpoint: modelName,
        variant: 'AllTraffic',
        region: LOCAL_REGION,
        instance_type: DIRECT_TARGET_INSTANCE_TYPE,
        container_env: {},
        slo_ms: sloMs,
        surge_ratio: 1,
        min_instances_floor: 1,
        invocation_ceiling_s: 60,
        max_overflow_probability: 0.05,
        require_drill: false,
    };
    return {
        config: { models: {} },
        configFile: CONFIG_FILE,
        modelName,
        model,
        endpoint: modelName,
        variant: model.variant,
        region: LOCAL_REGION,
        imageDigest: DIRECT_TARGET_IMAGE_DIGEST,
    };
}

;// CONCATENATED MODULE: ./src/model/drill.ts
/**
 * The surge drill's artifacts: what one drill (or the merge of its shards) measured of the
 * deployed policy under open-loop load, and the judgement of it.
 *
 * - `drill-shard`: what one shard of `scalegate drill --shard i/n` recorded: its share of the
 *   load (HDR windows by intended send time, per-second counters) and, on shard 0 only, the
 *   observer's view of the endpoint (instance counts, alarm states and transitions, the tracked
 *   metric, scaling activities). Shards are raw data; nothing in them is judged.
 * - `drill`: a whole drill (one process, or the shards merged): the same data plus the analysis
 *   (per-window verdicts, the measured policy lag with every step of it, predicted against
 *   observed) and the verdict.
 *
 * Times are seconds from the schedule's offset 0 (`histograms.start_at`), negative before it.
 */






const DRILL_PHASES = ['steady', 'surge', 'trough'];
const drillPhaseNameSchema = schemas_enum(DRILL_PHASES);
const drill_seconds = (what) => boundedNumber(0, LIMITS.seconds, what);
const offset = (what) => boundedNumber(-LIMITS.seconds, LIMITS.seconds, what);
const drill_rps = (what) => boundedNumber(0, LIMITS.rps, what);
const drill_count = (what) => boundedNumber(0, LIMITS.count, what).int();
const drill_instances = (what) => boundedNumber(0, LIMITS.instances, what).int();
const drill_ms = (what) => boundedNumber(0, LIMITS.ms, what);
const drill_probability = schemas_number().min(0).max(1);
/** Where a figure comes from (src/report/labels.ts words it). */
const drill_figureOriginSchema = schemas_enum(['measured', 'computed', 'assumed', 'bound', 'lower-bound']);
const drillPhaseSchema = object({
    name: drillPhaseNameSchema,
    start_s: drill_seconds('phase start_s'),
    end_s: drill_seconds('phase end_s'),
    /** Poisson arrival rate of the whole drill (all shards), requests/s. */
    rate_rps: drill_rps('phase rate_rps'),
    /** How the rate was chosen, e.g. `computed: X_target 17.89 x 2 instances`. */
    rate_source: safeString,
});
const drillSettingsSchema = object({
    surge_ratio: boundedNumber(1, 2, 'surge_ratio'),
    /** Instances asked for before the drill (null: the fleet as found). */
    start_instances: drill_instances('start_instances').positive().nullable(),
    slo_ms: drill_ms('slo_ms').positive(),
    window_s: drill_seconds('window_s').positive(),
    seed: schemas_number().int().nonnegative(),
    poll_s: drill_seconds('poll_s').positive(),
    request_timeout_s: drill_seconds('request_timeout_s').positive(),
    max_outstanding: drill_count('max_outstanding').positive(),
    transport: safeString,
    prompts: object({ source: safeString, count: schemas_number().int().positive() }),
});
/** What the plan promised, copied from it when the drill ran (the merge needs no plan file). */
const drillPredictionSchema = object({
    /** The plan's scale-out target (CloudWatch units) and scale-in threshold. */
    scaling_target_value: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'scaling_target_value').positive(),
    scale_in_threshold: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'scale_in_threshold')
        .positive()
        .nullable(),
    x_target_rps: drill_rps('x_target_rps').positive(),
    t_total_s: drill_seconds('t_total_s'),
    t_total_origin: drill_figureOriginSchema,
    policy_lag_s: drill_seconds('policy_lag_s'),
    policy_lag_origin: drill_figureOriginSchema,
    t_plan_s: drill_seconds('t_plan_s'),
    /** P(overflow within T_plan) of a k surge from the target (exact, from the plan's queue model). */
    surge_overflow_probability: drill_probability.nullable(),
    /** The same with no surge: what the target alone does. */
    baseline_overflow_probability: drill_probability.nullable(),
    /** The surge ratio the plan was derived for (the drill may use another). */
    planned_surge_ratio: boundedNumber(1, 2, 'planned_surge_ratio'),
    scale_in_cooldown_s: drill_seconds('scale_in_cooldown_s'),
    queue_max_depth: drill_count('queue_max_depth').positive(),
    // Additive (the SLO verdict); absent in older drills.
    /**
     * The share of a window's arrivals that may overflow (503) while the SLO still holds: the plan's
     * `policy.max_overflow_probability`, or the default for a plan that predates it.
     */
    max_overflow_probability: drill_probability.optional(),
    /** `plan`: from the plan's policy choice; `default`: the plan predates it (0.05). */
    max_overflow_origin: schemas_enum(['plan', 'default']).optional(),
    /**
     * The chosen policy's surge-safe per-instance rate (the plan's derived.lambda_safe_rps): what the
     * steady phase offers per instance. null: the plan predates it (the steady phase offers X_target).
     */
    lambda_safe_rps: drill_rps('lambda_safe_rps').positive().nullable().optional(),
});
/** One second of the schedule as this shard (or the merge) saw the load. Counters add on merge. */
const drillLoadSecondSchema = object({
    t: schemas_number().int().nonnegative(),
    /** Arrivals the schedule put in this second (intended send time). */
    offered: drill_count('offered'),
    sent: drill_count('sent'),
    /** Of the arrivals of this second: ok, ok within the SLO, overflows (503/429), other failures. */
    ok: drill_count('ok'),
    within_slo: drill_count('within_slo'),
    overflow: drill_count('overflow'),
    errors: drill_count('errors'),
    /** ok responses that ended in this second (the achieved rate). */
    completed_ok: drill_count('completed_ok'),
    /** Requests in flight at the client at the end of this second. */
    in_flight: drill_count('in_flight'),
});
const alarmStateSchema = schemas_enum(['OK', 'ALARM', 'INSUFFICIENT_DATA']);
/** The endpoint as the observer saw it, polled every `poll_s`. */
const drillObservationSchema = object({
    t_s: offset('t_s'),
    status: safeString,
    desired: drill_instances('desired').nullable(),
    current: drill_instances('current').nullable(),
    /** State of every watched alarm at this poll. */
    alarms: record(safeString, alarmStateSchema),
});
const watchedAlarmSchema = object({
    name: safeString,
    role: schemas_enum(['scale-out', 'scale-in']),
    metric: safeString,
    statistic: safeString,
    period_s: drill_seconds('period_s').positive(),
    evaluation_periods: schemas_number().int().positive(),
    datapoints_to_alarm: schemas_number().int().positive(),
    threshold: schemas_number(),
    comparison: safeString,
});
const drillObserverSchema = object({
    alarms: array(watchedAlarmSchema),
    /** The metric the scale-out policy tracks: one datapoint per period, at the period's start. */
    metric: object({
        namespace: safeString,
        name: safeString,
        statistic: safeString,
        period_s: drill_seconds('period_s').positive(),
        points: array(object({ t_s: offset('t_s'), value: schemas_number() })),
    }),
    observations: array(drillObservationSchema),
    /** State transitions from DescribeAlarmHistory (exact times). */
    transitions: array(object({ alarm: safeString, t_s: offset('t_s'), from: alarmStateSchema, to: alarmStateSchema })),
    activities: array(object({
        id: safeString,
        start_s: offset('start_s'),
        end_s: offset('end_s').nullable(),
        status: safeString,
        description: safeString,
        cause: safeString,
        /** Desired count the activity set (parsed from its description), null when it says none. */
        to_desired: drill_instances('to_desired').nullable(),
    })),
    /** Calls that failed while observing (the drill goes on; what they would have shown is missing). */
    errors: array(safeString),
});
/** The deployed policy against the plan (the validate comparison), when the drill started. */
const drillPolicySchema = object({
    verdict: schemas_enum(['clean', 'mismatch']),
    /** --allow-policy-mismatch: drilled what is deployed, recorded here. */
    mismatch_allowed: schemas_boolean(),
    /** The rows that differ (empty when clean). */
    differences: array(comparisonRowSchema),
    compared: schemas_number().int().nonnegative(),
});
const drillCommon = {
    schema_version: literal(1),
    model_name: safeString,
    endpoint: endpointNameSchema,
    variant: endpointNameSchema,
    region: safe_regionSchema,
    /** Shared by the shards of one drill: derived from the plan run, the schedule and its start. */
    run_id: safeString.min(1).max(200),
    measured_at: pastTime,
    /** The plan whose policy was drilled. */
    plan_run_id: safeString.min(1).max(200),
    plan_file: safeString,
    /** The live endpoint's fingerprint (equal to the plan's: the drill refuses another). */
    fingerprint: fingerprintSchema,
    /** Where the load came from (runner, region, host, RTT floor; a merge: shard 0's); absent in drills written before it was recorded. */
    vantage: vantageSchema.optional(),
    policy: drillPolicySchema,
    prediction: drillPredictionSchema,
    settings: drillSettingsSchema,
    phases: array(drillPhaseSchema).min(1),
    histograms: openLoopHistogramsSchema,
    load_seconds: array(drillLoadSecondSchema),
    /** Requests that failed other than by overflow, by outcome and message (the 20 commonest). */
    failures: array(object({
        outcome: safeString,
        error: safeString,
        count: drill_count('failure count'),
        /** First second of the schedule it happened in. */
        first_t: schemas_number().int().nonnegative(),
    })),
    /** null on shards other than 0 (one observer per drill). */
    observer: drillObserverSchema.nullable(),
    notes: array(safeString),
    provenance: provenanceSchema,
};
const drillShardArtifactSchema = object({
    ...drillCommon,
    kind: literal('drill-shard'),
    shard: shardSchema,
});
const windowJudgementSchema = schemas_enum(['ok', 'predicted', 'broken', 'not-judged']);
const drillWindowSchema = object({
    index: schemas_number().int().nonnegative(),
    phase: drillPhaseNameSchema.nullable(),
    start_s: drill_seconds('start_s'),
    end_s: drill_seconds('end_s'),
    /** Wholly inside one phase: only full windows are judged. */
    full: schemas_boolean(),
    offered: drill_count('offered'),
    ok: drill_count('ok'),
    overflow: drill_count('overflow'),
    errors: drill_count('errors'),
    /** p95 TTFAB of ok requests from the intended send time (HDR, 0.1 %). */
    p95_ms: drill_ms('p95_ms').nullable(),
    /** ok within the SLO / offered. */
    within_slo_fraction: drill_probability.nullable(),
    /** p95 over the SLO, or fewer than 95 % of the arrivals answered within it. */
    over_slo: schemas_boolean(),
    /** Against the plan: `predicted` (what the plan said would happen) or `broken` (beyond it). */
    judged: windowJudgementSchema,
    reason: safeString.nullable(),
    // Additive (the SLO verdict); absent in older drills.
    /**
     * Whether the SLO held in this window: within the SLO (not over_slo), overflows no more than
     * max_overflow_probability of its arrivals, every arrival sent. null: not judged (a partial
     * window, or the trough).
     */
    slo_held: schemas_boolean().nullable().optional(),
    /** Why the SLO did not hold here (null when it held or was not judged). */
    slo_reason: safeString.nullable().optional(),
});
/** One scale-out, step by step (offsets from the schedule start, s; null: not observed). */
const lagChainSchema = object({
    /** The phase whose start was the last load step before the breach. */
    load_step: drillPhaseNameSchema,
    load_step_s: drill_seconds('load_step_s'),
    /** Start of the first period of the run of breaching datapoints that raised the alarm. */
    first_breach_s: offset('first_breach_s').nullable(),
    alarm: safeString.nullable(),
    alarm_s: offset('alarm_s').nullable(),
    activity_s: offset('activity_s').nullable(),
    /** First poll that saw the new desired count (bounded by poll_s). */
    desired_s: offset('desired_s').nullable(),
    from_instances: drill_instances('from_instances').nullable(),
    to_instances: drill_instances('to_instances').nullable(),
    in_service_s: offset('in_service_s').nullable(),
    /** desired_s minus the origin: the later of the load step and the first breach. */
    policy_lag_s: drill_seconds('policy_lag_s').nullable(),
    /** alarm_s minus first_breach_s. */
    detection_s: drill_seconds('detection_s').nullable(),
    /** The alarm's datapoints x period (computed from its deployed settings). */
    configured_detection_s: drill_seconds('configured_detection_s').nullable(),
    /** in_service_s minus desired_s. */
    scale_out_s: drill_seconds('scale_out_s').nullable(),
    /**
     * `full`: the alarm's evaluation range held its EvaluationPeriods of real datapoints when it
     * fired; `partial`: fewer (the endpoint was idle before), so it fired sooner than configured.
     */
    evaluation: schemas_enum(['full', 'partial']).nullable(),
});
const drillAnalysisSchema = object({
    windows: array(drillWindowSchema),
    scale_outs: array(lagChainSchema),
    /** The first scale-out's policy lag: what `plan --drill` uses. */
    policy_lag: object({
        seconds: drill_seconds('policy_lag seconds').nullable(),
        origin: literal('measured'),
        /** The scale-out it comes from: `full` (from a busy endpoint) or `partial` (from an idle one). */
        evaluation: schemas_enum(['full', 'partial']).nullable(),
        /** How it was measured, or why it was not. */
        detail: safeString,
    }),
    /** From the origin of the first breach to the first run of 3 good windows (0: the SLO never broke). */
    slo_recovered_s: drill_seconds('slo_recovered_s').nullable(),
    steady: object({
        /** desired == current and no scale-out alarm in ALARM at the surge start. */
        settled_at_surge: schemas_boolean().nullable(),
        desired_at_surge: drill_instances('desired_at_surge').nullable(),
        current_at_surge: drill_instances('current_at_surge').nullable(),
        scaled_during: schemas_boolean().nullable(),
    }),
    observed: object({
        overflows: record(drillPhaseNameSchema, drill_count('overflows')),
        windows_over_slo: record(drillPhaseNameSchema, drill_count('windows')),
        /** Any overflow within T_plan of the surge start. */
        surge_overflowed_within_t_plan: schemas_boolean(),
        max_desired: drill_instances('max_desired').nullable(),
        /**
         * Measured instance-minutes over the steady and surge phases (the current instance count
         * between polls); absent in older drills, null without an observer.
         */
        instance_minutes: schemas_number().nonnegative().max(1e9).nullable().optional(),
    }),
    scale_in: object({
        scale_ins: drill_count('scale_ins'),
        /** Direction changes between successive scaling activities (out -> in -> out counts 2). */
        reversals: drill_count('reversals'),
        detail: safeString,
    }),
    reasons: array(safeString),
});
/** The SLO judgement of a whole drill (every full steady and surge window). */
const drillSloSchema = object({
    slo_ms: drill_ms('slo_ms').positive(),
    /** A window holds when at least this share of its arrivals is answered within the SLO. */
    within_slo_share: drill_probability,
    max_overflow_probability: drill_probability,
    max_overflow_origin: schemas_enum(['plan', 'default']),
    /** Full windows of the steady and surge phases judged. */
    windows_judged: drill_count('windows_judged'),
    /** The windows where the SLO did not hold, by index. */
    broken_windows: array(schemas_number().int().nonnegative()),
    /** Of those, how many in each phase. */
    broken_by_phase: object({ steady: drill_count('steady'), surge: drill_count('surge') }),
});
const drillArtifactSchema = object({
    ...drillCommon,
    kind: literal('drill'),
    /** Shards merged into this drill (one for a single process). */
    shards: array(shardSchema).min(1),
    /** `pass` exactly when the SLO held (slo_held); older drills: when no window broke the plan's promise. */
    verdict: schemas_enum(['pass', 'fail']),
    /** The windows that broke the plan's promise (beyond what it predicted), by index. */
    broken_windows: array(schemas_number().int().nonnegative()),
    analysis: drillAnalysisSchema,
    // Additive (the SLO verdict); absent in older drills, which the gate does not take as proof.
    /**
     * Every full window of the steady and surge phases inside the SLO (p95 TTFAB from the intended
     * send time, overflows, timeouts and failures counted as misses) with overflows no more than
     * max_overflow_probability of its arrivals. The verdict and the exit code follow it.
     */
    slo_held: schemas_boolean().optional(),
    /** No window beyond what the plan predicted (every bad window `predicted`, none `broken`). */
    as_predicted: schemas_boolean().optional(),
    /** How slo_held was judged, and which windows broke the SLO. */
    slo: drillSloSchema.optional(),
});

;// CONCATENATED MODULE: external "node:crypto"
const external_node_crypto_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:crypto");
;// CONCATENATED MODULE: ./src/model/ids.ts

/** 12 hex characters, like the legacy run ids: unique per run, short enough to quote. */
const newRunId = () => randomBytes(6).toString('hex');

;// CONCATENATED MODULE: ./src/model/legacy.ts


/**
 * The pre-schema format (files without `schema_version`), as published with the first real AWS
 * measurements. Only the fields scalegate uses are required; the rest are carried over where
 * the current format has a place for them.
 */
const legacyDeployedConfig = object({
    instance_type: schemas_string(),
    image_digest: schemas_string(),
    container_env: record(schemas_string(), schemas_string()).default({}),
});
const nullableNumber = schemas_number().nullable().optional();
const legacyStep = object({
    run_index: schemas_number().int().default(0),
    step_index: schemas_number().int(),
    concurrency: schemas_number().int().positive(),
    achieved_rps: schemas_number(),
    completed: schemas_number().int(),
    ok: schemas_number().int(),
    rejected: schemas_number().int().default(0),
    outcome_counts: record(schemas_string(), schemas_number()).default({}),
    ttfab_p50_ms: nullableNumber,
    ttfab_p95_ms: nullableNumber,
    ttfab_p99_ms: nullableNumber,
    latency_p95_ms: nullableNumber,
    s_mean_s: nullableNumber,
    s_p95_s: nullableNumber,
    concurrency_mean: schemas_number(),
    concurrency_peak: schemas_number(),
    ttfab_drift_ms: nullableNumber,
    meets_slo: schemas_boolean(),
    saturated: schemas_boolean().default(false),
    settled: schemas_boolean().default(true),
    client_bound: schemas_boolean().default(false),
    usable: schemas_boolean(),
    unusable_reason: schemas_string().nullable().default(null),
    capacity_changed: schemas_boolean().default(false),
    instance_counts: array(schemas_number().int()).default([]),
    server_concurrency_mean: nullableNumber,
    server_concurrency_peak: nullableNumber,
    server_model_latency_p95_ms: nullableNumber,
    server_5xx_total: nullableNumber,
});
const legacyQmaxSchema = object({
    model_name: schemas_string(),
    endpoint: schemas_string().nullable().default(null),
    run_id: schemas_string(),
    slo_ms: schemas_number().positive(),
    q_max: schemas_number().int().nonnegative(),
    q_max_per_run: array(schemas_number().int()).optional(),
    q_max_bracketed: schemas_boolean(),
    ttfab_p95_at_q_max_ms: nullableNumber,
    ttfab_p95_at_c1_ms: nullableNumber,
    s_mean_s: schemas_number(),
    s_p95_s: schemas_number(),
    frozen: schemas_boolean(),
    unbounded_queue: schemas_boolean(),
    instance_counts_observed: array(schemas_number().int()),
    transport: schemas_string(),
    deployed_config: legacyDeployedConfig,
    runs: schemas_number().int().positive().default(1),
    hold_s: schemas_number(),
    measure_window_s: schemas_number(),
    steps: array(legacyStep).min(1),
    provenance: object({ measured_at: schemas_string().optional(), note: schemas_string().nullable().optional() })
        .optional(),
});
const legacyTtotalSchema = object({
    model_name: schemas_string(),
    endpoint: schemas_string().nullable().default(null),
    run_id: schemas_string(),
    trigger: schemas_enum(['force-desired', 'policy']),
    deployed_config: legacyDeployedConfig,
    t_total_s: schemas_number().positive(),
    policy_lag_bound_s: schemas_number().nonnegative().default(60),
    instance_id: schemas_string().nullable().default(null),
    from_instances: schemas_number().int(),
    to_instances: schemas_number().int(),
    probe_concurrency: schemas_number().int().nullable().default(null),
    p95_before_ms: nullableNumber,
    p95_recovered_target_ms: nullableNumber,
    p95_after_ms: nullableNumber,
    timeline: array(object({
        stage: schemas_string(),
        at: schemas_string(),
        bounded: schemas_boolean(),
        source: schemas_string(),
        note: schemas_string().nullable().default(null),
    })),
    durations: array(object({
        from: schemas_string(),
        to: schemas_string(),
        seconds: schemas_number(),
        bounded: schemas_boolean(),
        share: schemas_number().nullable().default(null),
    })),
    dominant_stage: object({ from: schemas_string(), to: schemas_string(), seconds: schemas_number() })
        .nullable()
        .default(null),
    missing_stages: array(schemas_string()).default([]),
    notes: array(schemas_string()).default([]),
});
const LEGACY_TOOL = 'legacy format (no schema_version)';
const orNull = (v) => (v === undefined ? null : v);
/** Legacy `response-stream` is InvokeEndpointWithResponseStream, which the current format keeps. */
function legacyTransport(name) {
    return name === 'http' ? 'http' : 'response-stream';
}
/** Normalises `+00:00` offsets and microseconds so timestamps compare as strings. */
function isoOf(text) {
    return new Date(text).toISOString();
}
function qmaxFromLegacy(legacy) {
    const steps = legacy.steps.map((step) => {
        const serverPeak = orNull(step.server_concurrency_peak);
        return {
            run_index: step.run_index,
            step_index: step.step_index,
            concurrency: step.concurrency,
            started_at: null,
            hold_s: legacy.hold_s,
            measure_s: legacy.measure_window_s,
            achieved_rps: step.achieved_rps,
            completed: step.completed,
            ok: step.ok,
            rejected: step.rejected,
            outcome_counts: step.outcome_counts,
            ttfab_p50_ms: orNull(step.ttfab_p50_ms),
            ttfab_p95_ms: orNull(step.ttfab_p95_ms),
            ttfab_p95_ci_ms: null,
            ttfab_p99_ms: orNull(step.ttfab_p99_ms),
            latency_p95_ms: orNull(step.latency_p95_ms),
            s_mean_s: orNull(step.s_mean_s),
            s_p95_s: orNull(step.s_p95_s),
            concurrency_mean: step.concurrency_mean,
            concurrency_peak: step.concurrency_peak,
            ttfab_drift_ms: orNull(step.ttfab_drift_ms),
            verdict: step.meets_slo ? 'pass' : 'fail',
            meets_slo: step.meets_slo,
            saturated: step.saturated,
            settled: step.settled,
            client_bound: step.client_bound,
            capacity_changed: step.capacity_changed,
            usable: step.usable,
            unusable_reason: step.unusable_reason,
            instance_counts: step.instance_counts,
            server_concurrency_mean: orNull(step.server_concurrency_mean),
            server_concurrency_peak: serverPeak,
            server_model_latency_p95_ms: orNull(step.server_model_latency_p95_ms),
            server_5xx_total: orNull(step.server_5xx_total),
            // The legacy format recorded both sides of R but not R itself.
            cw_ratio: serverPeak !== null && serverPeak > 0 && step.concurrency_mean > 0
                ? serverPeak / step.concurrency_mean
                : null,
        };
    });
    const failsAbove = steps
        .filter((s) => s.verdict === 'fail' && s.concurrency > legacy.q_max)
        .map((s) => s.concurrency);
    return {
        schema_version: SCHEMA_VERSION,
        kind: 'qmax',
        model_name: legacy.model_name,
        endpoint: legacy.endpoint,
        run_id: legacy.run_id,
        measured_at: isoOf(legacy.provenance?.measured_at ?? '1970-01-01T00:00:00Z'),
        fingerprint: {
            instance_type: legacy.deployed_config.instance_type,
            image_digest: legacy.deployed_config.image_digest,
            container_env: legacy.deployed_config.container_env,
            region: null,
        },
        transport: legacyTransport(legacy.transport),
        slo_ms: legacy.slo_ms,
        q_max: legacy.q_max,
        q_max_per_run: legacy.q_max_per_run ?? [legacy.q_max],
        q_max_bracketed: legacy.q_max_bracketed,
        q_max_upper_bound: failsAbove.length > 0 ? Math.min(...failsAbove) : null,
        ttfab_p95_at_q_max_ms: orNull(legacy.ttfab_p95_at_q_max_ms),
        ttfab_p95_at_c1_ms: orNull(legacy.ttfab_p95_at_c1_ms),
        s_mean_s: legacy.s_mean_s,
        s_p95_s: legacy.s_p95_s,
        frozen: legacy.frozen,
        unbounded_queue: legacy.unbounded_queue,
        instance_counts_observed: legacy.instance_counts_observed,
        non_monotone: [],
        ladder: {
            mode: 'fixed',
            rungs: [...new Set(steps.map((s) => s.concurrency))],
            max_concurrency: null,
            resolution: null,
            hold_s: legacy.hold_s,
            measure_s: legacy.measure_window_s,
            settle_s: null,
            runs: legacy.runs,
        },
        total_rung_seconds: legacy.hold_s * steps.length,
        cloudwatch: { joined: steps.some((s) => s.server_concurrency_peak !== null), error: null },
        steps,
        provenance: { origin: 'legacy', tool: LEGACY_TOOL, note: legacy.provenance?.note ?? null },
    };
}
function ttotalFromLegacy(legacy) {
    const clockStart = legacy.timeline.find((t) => t.stage === 'desired_set') ?? legacy.timeline[0];
    return {
        schema_version: SCHEMA_VERSION,
        kind: 'ttotal',
        model_name: legacy.model_name,
        endpoint: legacy.endpoint,
        run_id: legacy.run_id,
        measured_at: isoOf(clockStart?.at ?? '1970-01-01T00:00:00Z'),
        fingerprint: {
            instance_type: legacy.deployed_config.instance_type,
            image_digest: legacy.deployed_config.image_digest,
            container_env: legacy.deployed_config.container_env,
            region: null,
        },
        transport: null,
        trigger: legacy.trigger,
        qmax_run_id: null,
        t_total_s: legacy.t_total_s,
        policy_lag_s: legacy.policy_lag_bound_s,
        // The legacy trigger forced the desired count under a freeze, so no policy lag was measured.
        policy_lag_bounded: true,
        policy_lag_source: `bound of ${legacy.policy_lag_bound_s} s: the legacy run forced desired capacity, so no policy lag was measured`,
        instance_id: legacy.instance_id,
        from_instances: legacy.from_instances,
        to_instances: legacy.to_instances,
        probe_concurrency: legacy.probe_concurrency,
        p95_before_ms: orNull(legacy.p95_before_ms),
        p95_recovered_target_ms: orNull(legacy.p95_recovered_target_ms),
        p95_after_ms: orNull(legacy.p95_after_ms),
        timeline: legacy.timeline.map((t) => ({ ...t, at: isoOf(t.at) })),
        durations: legacy.durations,
        dominant_stage: legacy.dominant_stage,
        missing_stages: legacy.missing_stages,
        notes: legacy.notes,
        provenance: { origin: 'legacy', tool: LEGACY_TOOL, note: null },
    };
}

;// CONCATENATED MODULE: ./src/model/io.ts
/**
 * The only place that reads and writes artifact files. Reading validates and upgrades (legacy
 * format -> current); writing validates and is atomic (temp file + rename), so a crash never
 * leaves a half-written artifact where a reader would find it.
 */








/** Every kind of artifact scalegate reads and writes: the measurements and plan, and the drill's. */
const io_artifactSchemas = {
    ...artifactSchemas,
    drill: drillArtifactSchema,
    'drill-shard': drillShardArtifactSchema,
};
const io_producerOf = {
    ...producerOf,
    drill: 'scalegate drill (or scalegate drill merge for shards)',
    'drill-shard': 'scalegate drill --shard i/n --start-at T',
};
/** Validates parsed JSON as an artifact of `kind`; `file` names the source in every message. */
function parseArtifact(kind, json, file) {
    const producer = io_producerOf[kind];
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
        throw new errors_UsageError(`${file}: not a ${kind} artifact (expected a JSON object). Produce one with \`${producer}\`.`);
    }
    const record = json;
    const version = record.schema_version;
    if (version === undefined)
        return parseLegacy(kind, record, file);
    if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
        throw new errors_UsageError(`${file}: schema_version must be a positive integer, found ${JSON.stringify(version)}.`);
    }
    if (version > SCHEMA_VERSION) {
        throw new errors_UsageError(`${file}: written by a newer scalegate (schema_version ${version}; this scalegate reads up to ${SCHEMA_VERSION}). Upgrade scalegate to read it.`);
    }
    if (record.kind !== kind) {
        throw new errors_UsageError(`${file}: is a ${JSON.stringify(record.kind)} artifact where a ${kind} artifact is needed. Produce one with \`${producer}\`.`);
    }
    const parsed = io_artifactSchemas[kind].safeParse(json);
    if (!parsed.success) {
        throw new errors_UsageError(`${file}: invalid ${kind} artifact:\n${issues_formatZodIssues(parsed.error)}\nProduce a valid one with \`${producer}\`.`);
    }
    return parsed.data;
}
function parseLegacy(kind, record, file) {
    const invalid = (issues) => new errors_UsageError(`${file}: no schema_version, and not a valid legacy ${kind} artifact:\n${issues}\nProduce a current one with \`${io_producerOf[kind]}\`.`);
    // The upgraded artifact must also pass the current schema (its bounds and safe strings): the
    // legacy format is no back door for a value the current one refuses.
    const current = (upgraded) => {
        const checked = io_artifactSchemas[kind].safeParse(upgraded);
        if (!checked.success)
            throw invalid(issues_formatZodIssues(checked.error));
        return checked.data;
    };
    if (kind === 'qmax') {
        const parsed = legacyQmaxSchema.safeParse(record);
        if (!parsed.success)
            throw invalid(issues_formatZodIssues(parsed.error));
        return current(qmaxFromLegacy(parsed.data));
    }
    if (kind === 'ttotal') {
        const parsed = legacyTtotalSchema.safeParse(record);
        if (!parsed.success)
            throw invalid(issues_formatZodIssues(parsed.error));
        return current(ttotalFromLegacy(parsed.data));
    }
    throw invalid(`  - schema_version: required (${kind} artifacts have no legacy format)`);
}
function readArtifact(kind, file) {
    let text;
    try {
        text = (0,external_node_fs_namespaceObject.readFileSync)(file, 'utf8');
    }
    catch (e) {
        const code = e.code;
        const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : e.message;
        throw new errors_UsageError(`${file}: cannot read the ${kind} artifact (${why}). Produce one with \`${io_producerOf[kind]}\`.`);
    }
    let json;
    try {
        json = JSON.parse(text);
    }
    catch (e) {
        throw new errors_UsageError(`${file}: not valid JSON (${e.message}). Produce a valid one with \`${io_producerOf[kind]}\`.`);
    }
    return parseArtifact(kind, json, file);
}
/**
 * Refuses an output path that names a directory (`--out dir/`, or an existing directory): the
 * message names the flag and the fix, before anything is measured or written. Commands call it
 * on their `--out` as soon as they parse it; the writers call it again as the last line.
 */
function checkOutputFile(file, flag = '--out') {
    const endsWithSeparator = file.endsWith('/') || file.endsWith(sep);
    let isDirectory = false;
    try {
        isDirectory = statSync(file).isDirectory();
    }
    catch {
        // Does not exist yet: that is the usual case.
    }
    if (file === '' || endsWithSeparator || isDirectory) {
        throw new UsageError(`${flag} ${JSON.stringify(file)}: names a directory, not a file. Give a file name (e.g. ${flag} ${file.replace(/[\\/]+$/, '') || '.'}/<name>.json), or leave ${flag} out for the default name.`);
    }
    return file;
}
/** fsync of a directory, so a rename in it survives a power cut. Some platforms cannot: skipped. */
function fsyncDirectory(dir) {
    let fd;
    try {
        fd = openSync(dir, 'r');
    }
    catch {
        return;
    }
    try {
        fsyncSync(fd);
    }
    catch (e) {
        const code = e.code;
        if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL')
            throw e;
    }
    finally {
        closeSync(fd);
    }
}
/**
 * Writes text so that readers see the old file or the new one, never a part: temp file, fsync,
 * rename, then fsync of the directory (the rename itself is durable only once the directory is).
 */
function writeFileAtomic(file, text) {
    checkOutputFile(file);
    const dir = dirname(file);
    mkdirSync(dir, { recursive: true });
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
        const fd = openSync(temp, 'w');
        try {
            writeSync(fd, text);
            fsyncSync(fd);
        }
        finally {
            closeSync(fd);
        }
        renameSync(temp, file);
    }
    catch (e) {
        rmSync(temp, { force: true });
        throw e;
    }
    fsyncDirectory(dir);
}
/** Stable, diff-friendly artifact JSON (two-space indent, trailing newline). */
const artifactJson = (artifact) => `${JSON.stringify(artifact, null, 2)}\n`;
/** Validates before writing: an artifact that would not read back is a bug, never a file. */
function writeArtifact(kind, file, artifact) {
    const parsed = io_artifactSchemas[kind].safeParse(artifact);
    if (!parsed.success) {
        throw new Error(`refusing to write an invalid ${kind} artifact to ${file}:\n${formatZodIssues(parsed.error)}`);
    }
    writeFileAtomic(file, artifactJson(parsed.data));
}

;// CONCATENATED MODULE: ./src/model/names.ts


const DEFAULT_ARTIFACTS_DIR = 'artifacts';
/**
 * Where runs against the local SageMaker (a rehearsal, `npm start`, any command whose AWS clients
 * point at loopback) write by default: ignored by git, never mixed with the committed artifacts.
 */
const LOCAL_ARTIFACTS_DIR = 'artifacts/local';
const qmaxFileName = (model, transport, fp) => `qmax-${model}-${transport}-${fingerprintSlug(fp)}.json`;
const ttotalFileName = (model, trigger, fp) => `ttotal-${model}-${trigger}-${fingerprintSlug(fp)}.json`;
const goodputFileName = (model, transport, fp) => `goodput-${model}-${transport}-${fingerprintSlug(fp)}.json`;
/** A whole drill (one process, or its shards merged). */
const drillFileName = (model, fp) => `drill-${model}-${fingerprint_fingerprintSlug(fp)}.json`;
/** One shard's raw recording, for `scalegate drill merge`. */
const drillShardFileName = (model, fp, shard) => `drill-${model}-${fingerprintSlug(fp)}.shard-${shard.index}-of-${shard.count}.json`;
/** The drill's timeline chart, beside its artifact. */
const drillChartFileName = (model, fp) => `drill-${model}-${fingerprintSlug(fp)}.svg`;
const planFileName = (model) => `plan-${model}.json`;
const driftFileName = (model) => `drift-${model}.json`;
const validateFileName = (model) => `validate-${model}.json`;
/**
 * Where a freeze records what to restore, so that `thaw` can undo it after a hard kill. The
 * endpoint name is checked against SageMaker's pattern first: a name such as `../../x` must never
 * become a path outside the state directory.
 */
const thawJournalFileName = (endpoint) => `thaw-journal-${checkAwsName(endpoint, 'endpoint', 'endpoint')}.json`;

;// CONCATENATED MODULE: ./src/model/plan-inputs.ts
/**
 * The measurements a plan says it was derived from, found in the artifacts directory, so that the
 * gate can derive the plan again and refuse one whose values do not follow from them. Found by
 * the file name the plan recorded, and accepted only when the run id matches; otherwise any
 * artifact of that kind and model in the directory with the recorded run id (files are renamed,
 * directories moved). Never "some measurement": a plan whose measurements are absent is refused.
 */




function find(kind, recorded, modelName, dir) {
    const named = (0,external_node_path_namespaceObject.join)(dir, (0,external_node_path_namespaceObject.basename)(recorded.file));
    const problems = [];
    if ((0,external_node_fs_namespaceObject.existsSync)(named)) {
        try {
            const artifact = readArtifact(kind, named);
            if (artifact.run_id === recorded.run_id)
                return { artifact, file: named, error: null };
            problems.push(`${named} is run ${artifact.run_id}, not ${recorded.run_id}`);
        }
        catch (e) {
            if (!isUsageError(e))
                throw e;
            problems.push(e.message);
        }
    }
    let names = [];
    try {
        names = (0,external_node_fs_namespaceObject.readdirSync)(dir).sort();
    }
    catch {
        // No directory: nothing to find.
    }
    for (const name of names) {
        if (!name.startsWith(`${kind}-${modelName}-`) || !name.endsWith('.json'))
            continue;
        const file = (0,external_node_path_namespaceObject.join)(dir, name);
        if (file === named)
            continue;
        try {
            const artifact = readArtifact(kind, file);
            if (artifact.run_id === recorded.run_id)
                return { artifact, file, error: null };
        }
        catch (e) {
            if (!isUsageError(e))
                throw e;
        }
    }
    return {
        artifact: null,
        file: named,
        error: `the plan's ${kind} measurement (run ${recorded.run_id}, recorded as ${recorded.file}) is not in ${dir}${problems.length ? ` (${problems.join('; ')})` : ''}`,
    };
}
function findPlanMeasurements(plan, artifactsDir) {
    const qmax = find('qmax', plan.inputs.qmax, plan.model_name, artifactsDir);
    const ttotal = plan.inputs.ttotal
        ? find('ttotal', plan.inputs.ttotal, plan.model_name, artifactsDir)
        : null;
    const drill = plan.inputs.drill ? find('drill', plan.inputs.drill, plan.model_name, artifactsDir) : null;
    const goodput = plan.inputs.goodput
        ? find('goodput', plan.inputs.goodput, plan.model_name, artifactsDir)
        : null;
    const errors = [qmax.error, ttotal?.error ?? null, drill?.error ?? null, goodput?.error ?? null].filter((e) => e !== null);
    return {
        qmax: qmax.artifact,
        qmaxFile: qmax.file,
        ttotal: ttotal?.artifact ?? null,
        ttotalFile: ttotal?.file ?? null,
        drill: drill?.artifact ?? null,
        drillFile: drill?.file ?? null,
        goodput: goodput?.artifact ?? null,
        goodputFile: goodput?.file ?? null,
        error: errors.length ? errors.join('; ') : null,
    };
}

;// CONCATENATED MODULE: ./src/model/plan-proofs.ts
/**
 * The proofs committed beside a plan that the release gate requires: the validate of its deployed
 * policy (`validate-<model>.json`, a fixed name) and the drills of it (`drill-<model>-<slug>.json`,
 * found by the plan run id they name). Reading only; judging them is the gate's (src/plan/gate.ts).
 */





function findPlanProofs(plan, artifactsDir) {
    const validateFile = (0,external_node_path_namespaceObject.join)(artifactsDir, validateFileName(plan.model_name));
    let validate = null;
    let validateError = null;
    if (!(0,external_node_fs_namespaceObject.existsSync)(validateFile)) {
        validateError = `${validateFile}: no such file`;
    }
    else {
        try {
            validate = readArtifact('validate', validateFile);
        }
        catch (e) {
            if (!isUsageError(e))
                throw e;
            validateError = e.message;
        }
    }
    let names = [];
    try {
        names = (0,external_node_fs_namespaceObject.readdirSync)(artifactsDir).sort();
    }
    catch {
        // No directory: no drill either.
    }
    const drills = [];
    const drillErrors = [];
    for (const name of names) {
        if (!name.startsWith(`drill-${plan.model_name}-`) || !name.endsWith('.json'))
            continue;
        const file = (0,external_node_path_namespaceObject.join)(artifactsDir, name);
        try {
            const drill = readArtifact('drill', file);
            if (drill.plan_run_id === plan.run_id)
                drills.push({ file, drill });
        }
        catch (e) {
            if (!isUsageError(e))
                throw e;
            drillErrors.push(e.message);
        }
    }
    drills.sort((a, b) => b.drill.measured_at.localeCompare(a.drill.measured_at));
    return { validateFile, validate, validateError, drills, drillErrors };
}

;// CONCATENATED MODULE: ./src/model/index.ts

















;// CONCATENATED MODULE: ./src/plan/policy-shape.ts

/**
 * The container's own service time (the container contract): FirstChunkLatency in ms, from
 * dequeue to the first audio byte, per endpoint variant, published by the container as CloudWatch
 * embedded metric format (no queueing in it, unlike ModelLatency). SageMaker does not tell a
 * container which endpoint it serves, so the deployment sets `env` in the model environment.
 */
const SERVICE_METRICS = {
    namespace: 'Scalegate/Container',
    metricName: 'FirstChunkLatency',
    unit: 'Milliseconds',
    env: { endpoint: 'SCALEGATE_ENDPOINT_NAME', variant: 'SCALEGATE_VARIANT_NAME' },
};
/** The model environment that names the dimensions of the container's service-time metric. */
const serviceMetricsEnvironment = (endpoint, variant) => ({
    [SERVICE_METRICS.env.endpoint]: endpoint,
    [SERVICE_METRICS.env.variant]: variant,
});
/**
 * How each metric a plan can track is deployed. The plan's `scaling_target_value` and
 * `scale_in_threshold` are in the metric's own units, so every alarm on the tracked metric uses
 * the statistic and period its predefined target-tracking metric uses:
 * - ConcurrentRequestsPerModel: target tracking on the high-resolution predefined metric
 *   (AWS/SageMaker ConcurrentRequestsPerModel, Maximum, published every 10 s); the scalegate
 *   alarms read it at 60 s with Maximum, which keeps every 10 s peak of the minute.
 * - InvocationsPerInstance: target tracking on the classic predefined metric
 *   SageMakerVariantInvocationsPerInstance: AWS/SageMaker InvocationsPerInstance, statistic Sum,
 *   1-minute periods. SageMaker publishes 1/numberOfInstances per request (SageMaker API
 *   Reference, ScalingPolicyMetric), so a minute's Sum is the invocations per minute per
 *   instance, the unit AWS's target value is in ("SageMakerVariantInvocationsPerInstance =
 *   (MAX_RPS * SAFETY_FACTOR) * 60", SageMaker Developer Guide, load testing your auto scaling
 *   configuration). Any other statistic or period would compare the threshold with another
 *   number.
 */
const SCALING_METRIC_SHAPES = {
    ConcurrentRequestsPerModel: {
        predefinedMetricType: 'SageMakerVariantConcurrentRequestsPerModelHighResolution',
        metricName: 'ConcurrentRequestsPerModel',
        statistic: 'Maximum',
        /** How descriptions name the metric (with its statistic). */
        label: 'ConcurrentRequestsPerModel (Maximum)',
        /** The dashboard's graph of the tracked metric. */
        graphTitle: 'Concurrent requests per model (Maximum) vs the measured thresholds',
        graphLabel: 'ConcurrentRequestsPerModel max',
    },
    InvocationsPerInstance: {
        predefinedMetricType: 'SageMakerVariantInvocationsPerInstance',
        metricName: 'InvocationsPerInstance',
        statistic: 'Sum',
        label: 'InvocationsPerInstance (Sum per minute: invocations per minute per instance)',
        graphTitle: 'Invocations per instance (Sum per minute) vs the measured thresholds',
        graphLabel: 'InvocationsPerInstance per minute',
    },
};
/**
 * Alarm timing. Every choice is a constant here (or derived from the plan below), so validate
 * compares the deployed alarms with exactly what was synthesized.
 *
 * - Scale-in, 60 s x 15 of 15, Maximum: ConcurrentRequestsPerModel is published every 10 s; a
 *   60 s period with Maximum keeps every 10 s peak (the maximum of six maxima), so one busy
 *   moment in a minute keeps the fleet. Fifteen consecutive low minutes are what AWS target
 *   tracking itself requires before scaling in (its scale-in alarm is 15 x 1 min); we disable
 *   that one (DisableScaleIn) and keep its patience, because removing one of N instances raises
 *   the survivors' load by N/(N-1) and getting the instance back costs a whole T_total. Any
 *   single minute above the threshold resets the count (datapoints = periods). Missing data is
 *   breaching: an idle endpoint publishes nothing and must still scale in.
 *   For InvocationsPerInstance the same timing applies with Sum (its 60 s Sum is the unit of the
 *   threshold; see SCALING_METRIC_SHAPES).
 * - Concurrency above target, 60 s, Maximum > target for ceil(T_plan / 60) + 1 consecutive
 *   minutes (InvocationsPerInstance: Sum per 60 s > target; the alarm keeps its name): scale-out should bring concurrency back under the target within one T_plan; above it
 *   for longer means scale-out is failing or the fleet is at max_instances.
 * - 5XX (platform errors), Sum >= 1 in 3 of 5 minutes: a single transient error does not page.
 * - Queue saturation, Sum >= 1 in 2 of 3 minutes: rejected requests are users turned away.
 * - Service time, p95 of the container's FirstChunkLatency (dequeue to first audio byte) over
 *   5 min, 3 of 3: sustained, not a spike. Not ModelLatency: it includes the container's queue,
 *   so at a threshold measured at concurrency 1 it fires under normal load at the target.
 */
const ALARM_TIMING = {
    scaleIn: { periodS: 60, evaluationPeriods: 15, datapointsToAlarm: 15 },
    errors5xx: { periodS: 60, evaluationPeriods: 5, datapointsToAlarm: 3 },
    queueSaturation: { periodS: 60, evaluationPeriods: 3, datapointsToAlarm: 2 },
    serviceTime: { periodS: 300, evaluationPeriods: 3, datapointsToAlarm: 3 },
    /** Period of the concurrency-above-target alarm; its periods come from T_plan. */
    concurrencyAboveTargetPeriodS: 60,
};
/** Consecutive minutes above target that mean scale-out is not keeping up (see ALARM_TIMING). */
const aboveTargetPeriods = (tPlanS) => Math.max(1, Math.ceil(tPlanS / ALARM_TIMING.concurrencyAboveTargetPeriodS) + 1);
/** `endpoint/<endpoint>/variant/<variant>`: the Application Auto Scaling resource id. */
const scalableResourceId = (endpoint, variant) => `endpoint/${endpoint}/variant/${variant}`;
/**
 * Deterministic names, from the endpoint and variant (unique per region; alarm and policy names
 * are regional, so the same endpoint name in two regions does not collide).
 */
function policyNames(endpoint, variant) {
    const base = `scalegate-${endpoint}-${variant}`;
    return {
        scaleOutPolicy: `${base}-scale-out`,
        scaleInPolicy: `${base}-scale-in`,
        scaleInAlarm: `${base}-scale-in`,
        errors5xxAlarm: `${base}-5xx`,
        queueSaturationAlarm: `${base}-queue-saturation`,
        concurrencyAboveTargetAlarm: `${base}-concurrency-above-target`,
        serviceTimeAlarm: `${base}-service-time`,
    };
}
/**
 * CloudFormation stack names of a model's deployment, in the order they are applied:
 * foundation (role, weights bucket) -> model cache (weights sync) -> endpoint. Calibration has
 * stacks of its own, which share nothing with production's: calibration foundation (its own
 * execution role) -> calibration endpoint. `scalegate deploy` and the CDK app both use these, so
 * the CLI never has to synthesize to know what it deploys.
 */
function stackNames(modelName) {
    const base = `scalegate-${modelName}`;
    return {
        foundation: `${base}-foundation`,
        modelCache: `${base}-model-cache`,
        endpoint: `${base}-endpoint`,
        calibrationFoundation: `${base}-calibration-foundation`,
        calibration: `${base}-calibration`,
    };
}
/** The calibration copy of an endpoint, where pull requests are measured before they merge. */
const calibrationEndpointName = (endpoint) => `${endpoint}-calibration`;
/** ms -> the microseconds AWS/SageMaker ModelLatency is published in (integer). */
const msToMicroseconds = (ms) => Math.round(ms * 1000);
function sageMakerAlarm(target, fields) {
    return {
        namespace: 'AWS/SageMaker',
        dimensions: { EndpointName: target.endpoint, VariantName: target.variant },
        ...fields,
        statistic: fields.statistic ?? null,
        extendedStatistic: fields.extendedStatistic ?? null,
    };
}
/**
 * What a plan deploys onto `target`. Throws UsageError when the plan has no deployable
 * CloudWatch threshold (no CloudWatch/client ratio was measured), since then there is nothing
 * measured to scale on.
 */
function expectedPolicyShape(target, plan) {
    const d = plan.deployable;
    if (d.scaling_target_value === null || d.scale_in_threshold === null) {
        throw new errors_UsageError(`the plan for ${target.modelName} has no deployable CloudWatch threshold (scaling_target_value is null: no CloudWatch/client ratio R was measured). Re-run \`scalegate qmax --model ${target.modelName}\` with the CloudWatch join on the sagemaker transport, then \`scalegate plan\`.`);
    }
    const names = policyNames(target.endpoint, target.variant);
    const tPlanS = plan.derived.t_plan_s;
    const serviceTimeMs = d.service_time_alarm_ms;
    const scalingMetric = d.scaling_metric;
    const tracked = SCALING_METRIC_SHAPES[scalingMetric];
    return {
        target: { ...target },
        scalingMetric,
        scalableTarget: {
            serviceNamespace: 'sagemaker',
            resourceId: scalableResourceId(target.endpoint, target.variant),
            scalableDimension: 'sagemaker:variant:DesiredInstanceCount',
            minCapacity: d.min_instances,
            maxCapacity: d.max_instances,
            suspendedState: {
                dynamicScalingInSuspended: false,
                dynamicScalingOutSuspended: false,
                scheduledScalingSuspended: false,
            },
        },
        scaleOut: {
            policyName: names.scaleOutPolicy,
            policyType: 'TargetTrackingScaling',
            predefinedMetricType: tracked.predefinedMetricType,
            targetValue: d.scaling_target_value,
            scaleOutCooldownS: d.scale_out_cooldown_s,
            disableScaleIn: true,
        },
        scaleIn: {
            policyName: names.scaleInPolicy,
            policyType: 'StepScaling',
            adjustmentType: 'ChangeInCapacity',
            scalingAdjustment: -1,
            metricIntervalUpperBound: 0,
            cooldownS: d.scale_in_cooldown_s,
            metricAggregationType: 'Maximum',
            alarm: sageMakerAlarm(target, {
                alarmName: names.scaleInAlarm,
                metricName: tracked.metricName,
                statistic: tracked.statistic,
                ...ALARM_TIMING.scaleIn,
                threshold: d.scale_in_threshold,
                comparisonOperator: 'LessThanOrEqualToThreshold',
                treatMissingData: 'breaching',
                description: `scalegate ${target.modelName}: scale in by one instance when ${tracked.label} stays at or below ${d.scale_in_threshold} (plan scale_in_threshold) for ${ALARM_TIMING.scaleIn.evaluationPeriods} minutes; missing data (idle) counts as low.`,
            }),
        },
        container: { environment: { MAX_QUEUE_DEPTH: String(d.queue_max_depth) } },
        deployment: {
            instanceType: plan.fingerprint.instance_type,
            imageDigest: plan.fingerprint.image_digest,
            routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
        },
        alarms: {
            errors5xx: sageMakerAlarm(target, {
                alarmName: names.errors5xxAlarm,
                metricName: 'Invocation5XXErrors',
                statistic: 'Sum',
                ...ALARM_TIMING.errors5xx,
                threshold: 1,
                comparisonOperator: 'GreaterThanOrEqualToThreshold',
                treatMissingData: 'notBreaching',
                description: `scalegate ${target.modelName}: SageMaker returned 5XX errors in ${ALARM_TIMING.errors5xx.datapointsToAlarm} of ${ALARM_TIMING.errors5xx.evaluationPeriods} minutes.`,
            }),
            // Queue saturation: the container answers 503 queue_saturated, and SageMaker reports a
            // container's non-2xx answer to the caller as a ModelError, counted in InvocationModelErrors
            // (not in Invocation5XXErrors, which counts SageMaker's own 5XX). No AWS/SageMaker metric
            // carries the container's status code, so this alarm also counts the container's 400s
            // (malformed bodies) and crashes; under valid traffic a contract-following container's
            // only non-2xx answer is the 503, so a rise here with 5XX flat is saturation.
            queueSaturation: sageMakerAlarm(target, {
                alarmName: names.queueSaturationAlarm,
                metricName: 'InvocationModelErrors',
                statistic: 'Sum',
                ...ALARM_TIMING.queueSaturation,
                threshold: 1,
                comparisonOperator: 'GreaterThanOrEqualToThreshold',
                treatMissingData: 'notBreaching',
                description: `scalegate ${target.modelName}: the container rejected requests (503 queue_saturated at MAX_QUEUE_DEPTH=${d.queue_max_depth}, counted as InvocationModelErrors) in ${ALARM_TIMING.queueSaturation.datapointsToAlarm} of ${ALARM_TIMING.queueSaturation.evaluationPeriods} minutes.`,
            }),
            concurrencyAboveTarget: sageMakerAlarm(target, {
                alarmName: names.concurrencyAboveTargetAlarm,
                metricName: tracked.metricName,
                statistic: tracked.statistic,
                periodS: ALARM_TIMING.concurrencyAboveTargetPeriodS,
                evaluationPeriods: aboveTargetPeriods(tPlanS),
                datapointsToAlarm: aboveTargetPeriods(tPlanS),
                threshold: d.scaling_target_value,
                comparisonOperator: 'GreaterThanThreshold',
                treatMissingData: 'notBreaching',
                description: `scalegate ${target.modelName}: ${tracked.label} above the scaling target ${d.scaling_target_value} for longer than T_plan (${tPlanS} s) + 1 min: scale-out is not keeping up or the fleet is at max_instances (${d.max_instances}).`,
            }),
            serviceTime: serviceTimeMs === null
                ? null
                : {
                    ...sageMakerAlarm(target, {
                        alarmName: names.serviceTimeAlarm,
                        metricName: SERVICE_METRICS.metricName,
                        extendedStatistic: 'p95',
                        ...ALARM_TIMING.serviceTime,
                        threshold: serviceTimeMs,
                        comparisonOperator: 'GreaterThanThreshold',
                        treatMissingData: 'notBreaching',
                        description: `scalegate ${target.modelName}: the container's own service time (FirstChunkLatency p95, dequeue to first audio byte, no queueing) above the measured TTFAB p95 at concurrency 1 (${serviceTimeMs} ms; the service time, not the SLO): service itself degraded.`,
                    }),
                    namespace: SERVICE_METRICS.namespace,
                },
        },
    };
}
/** `EndpointName=x,VariantName=y`: dimensions as one comparable value. */
const dimensionsValue = (dimensions) => Object.entries(dimensions)
    .map(([name, value]) => `${name}=${value}`)
    .join(',');
function alarmRows(prefix, alarm) {
    return [
        { parameter: `${prefix}.name`, value: alarm.alarmName },
        { parameter: `${prefix}.namespace`, value: alarm.namespace },
        { parameter: `${prefix}.metric`, value: alarm.metricName },
        { parameter: `${prefix}.dimensions`, value: dimensionsValue(alarm.dimensions) },
        { parameter: `${prefix}.statistic`, value: alarm.statistic ?? alarm.extendedStatistic },
        { parameter: `${prefix}.period_s`, value: alarm.periodS },
        { parameter: `${prefix}.evaluation_periods`, value: alarm.evaluationPeriods },
        { parameter: `${prefix}.datapoints_to_alarm`, value: alarm.datapointsToAlarm },
        { parameter: `${prefix}.threshold`, value: alarm.threshold },
        { parameter: `${prefix}.comparison`, value: alarm.comparisonOperator },
        { parameter: `${prefix}.missing_data`, value: alarm.treatMissingData },
    ];
}
/**
 * The shape as ordered `{parameter, value}` rows with stable parameter names: what validate and
 * drift compare, one row per deployed parameter. Names (all snake_case):
 * scalable_target.{resource_id, scalable_dimension, min_capacity, max_capacity,
 *   suspended.dynamic_scaling_in, suspended.dynamic_scaling_out, suspended.scheduled_scaling},
 * scale_out.{policy_name, policy_type, metric, target_value, cooldown_s, disable_scale_in},
 * scale_in.{policy_name, policy_type, adjustment_type, adjustment, metric_interval_upper_bound,
 *   cooldown_s, metric_aggregation}, scale_in.alarm.*, container.max_queue_depth,
 * deployment.{instance_type, image_digest, routing_strategy}, and alarm rows
 * (`<prefix>.{name, namespace, metric, dimensions, statistic, period_s, evaluation_periods,
 * datapoints_to_alarm, threshold, comparison, missing_data}`) for scale_in.alarm,
 * alarms.errors_5xx, alarms.queue_saturation, alarms.concurrency_above_target and (when the plan
 * has it) alarms.service_time.
 */
function flattenPolicyShape(shape) {
    const t = shape.scalableTarget;
    const rows = [
        { parameter: 'scalable_target.resource_id', value: t.resourceId },
        { parameter: 'scalable_target.scalable_dimension', value: t.scalableDimension },
        { parameter: 'scalable_target.min_capacity', value: t.minCapacity },
        { parameter: 'scalable_target.max_capacity', value: t.maxCapacity },
        {
            parameter: 'scalable_target.suspended.dynamic_scaling_in',
            value: t.suspendedState.dynamicScalingInSuspended,
        },
        {
            parameter: 'scalable_target.suspended.dynamic_scaling_out',
            value: t.suspendedState.dynamicScalingOutSuspended,
        },
        {
            parameter: 'scalable_target.suspended.scheduled_scaling',
            value: t.suspendedState.scheduledScalingSuspended,
        },
        { parameter: 'scale_out.policy_name', value: shape.scaleOut.policyName },
        { parameter: 'scale_out.policy_type', value: shape.scaleOut.policyType },
        { parameter: 'scale_out.metric', value: shape.scaleOut.predefinedMetricType },
        { parameter: 'scale_out.target_value', value: shape.scaleOut.targetValue },
        { parameter: 'scale_out.cooldown_s', value: shape.scaleOut.scaleOutCooldownS },
        { parameter: 'scale_out.disable_scale_in', value: shape.scaleOut.disableScaleIn },
        { parameter: 'scale_in.policy_name', value: shape.scaleIn.policyName },
        { parameter: 'scale_in.policy_type', value: shape.scaleIn.policyType },
        { parameter: 'scale_in.adjustment_type', value: shape.scaleIn.adjustmentType },
        { parameter: 'scale_in.adjustment', value: shape.scaleIn.scalingAdjustment },
        { parameter: 'scale_in.metric_interval_upper_bound', value: shape.scaleIn.metricIntervalUpperBound },
        { parameter: 'scale_in.cooldown_s', value: shape.scaleIn.cooldownS },
        { parameter: 'scale_in.metric_aggregation', value: shape.scaleIn.metricAggregationType },
        ...alarmRows('scale_in.alarm', shape.scaleIn.alarm),
        { parameter: 'container.max_queue_depth', value: Number(shape.container.environment.MAX_QUEUE_DEPTH) },
        { parameter: 'deployment.instance_type', value: shape.deployment.instanceType },
        { parameter: 'deployment.image_digest', value: shape.deployment.imageDigest },
        { parameter: 'deployment.routing_strategy', value: shape.deployment.routingStrategy },
        ...alarmRows('alarms.errors_5xx', shape.alarms.errors5xx),
        ...alarmRows('alarms.queue_saturation', shape.alarms.queueSaturation),
        ...alarmRows('alarms.concurrency_above_target', shape.alarms.concurrencyAboveTarget),
    ];
    if (shape.alarms.serviceTime)
        rows.push(...alarmRows('alarms.service_time', shape.alarms.serviceTime));
    return rows;
}

;// CONCATENATED MODULE: external "aws-cdk-lib/aws-applicationautoscaling"
var aws_applicationautoscaling_x = (y) => {
	var x = {}; __nccwpck_require__.d(x, y); return x
} 
var aws_applicationautoscaling_y = (x) => (() => (x))
const aws_applicationautoscaling_namespaceObject = aws_applicationautoscaling_x({ ["CfnScalableTarget"]: () => (__WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_aws_applicationautoscaling_01f2dd68__.CfnScalableTarget), ["CfnScalingPolicy"]: () => (__WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_aws_applicationautoscaling_01f2dd68__.CfnScalingPolicy) });
;// CONCATENATED MODULE: external "aws-cdk-lib/aws-cloudwatch"
var aws_cloudwatch_x = (y) => {
	var x = {}; __nccwpck_require__.d(x, y); return x
} 
var aws_cloudwatch_y = (x) => (() => (x))
const aws_cloudwatch_namespaceObject = aws_cloudwatch_x({ ["Alarm"]: () => (__WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_aws_cloudwatch_69e4e3f9__.Alarm), ["AlarmStatusWidget"]: () => (__WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_aws_cloudwatch_69e4e3f9__.AlarmStatusWidget), ["Dashboard"]: () => (__WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_aws_cloudwatch_69e4e3f9__.Dashboard), ["GraphWidget"]: () => (__WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_aws_cloudwatch_69e4e3f9__.GraphWidget), ["Metric"]: () => (__WEBPACK_EXTERNAL_MODULE_aws_cdk_lib_aws_cloudwatch_69e4e3f9__.Metric) });
;// CONCATENATED MODULE: ./infra/lib/alarm.ts
/** A CloudWatch alarm synthesized from an AlarmShape: every field comes from the shape. */


function metricOf(alarm) {
    return new aws_cloudwatch_namespaceObject.Metric({
        namespace: alarm.namespace,
        metricName: alarm.metricName,
        dimensionsMap: { ...alarm.dimensions },
        statistic: alarm.statistic ?? alarm.extendedStatistic,
        period: external_aws_cdk_lib_namespaceObject.Duration.seconds(alarm.periodS),
    });
}
function alarmFromShape(scope, id, alarm) {
    return new aws_cloudwatch_namespaceObject.Alarm(scope, id, {
        alarmName: alarm.alarmName,
        alarmDescription: alarm.description,
        metric: metricOf(alarm),
        threshold: alarm.threshold,
        evaluationPeriods: alarm.evaluationPeriods,
        datapointsToAlarm: alarm.datapointsToAlarm,
        comparisonOperator: alarm.comparisonOperator,
        treatMissingData: alarm.treatMissingData,
    });
}

;// CONCATENATED MODULE: ./infra/lib/endpoint-autoscaling.ts
/**
 * EndpointAutoscaling: the scaling half of the deployed policy shape (src/plan/policy-shape.ts), built from
 * `expectedPolicyShape` so that every number (and name) deployed is the one `validate` expects.
 * Only the EndpointStack adds it, and only after the measured-plan gate passed.
 */




class EndpointAutoscaling extends external_constructs_namespaceObject.Construct {
    shape;
    scalableTarget;
    scaleOutPolicy;
    scaleInPolicy;
    scaleInAlarm;
    constructor(scope, id, props) {
        super(scope, id);
        const shape = expectedPolicyShape(props.target, props.plan);
        this.shape = shape;
        const t = shape.scalableTarget;
        // No RoleARN: Application Auto Scaling uses its SageMaker service-linked role.
        this.scalableTarget = new aws_applicationautoscaling_namespaceObject.CfnScalableTarget(this, 'ScalableTarget', {
            serviceNamespace: t.serviceNamespace,
            resourceId: t.resourceId,
            scalableDimension: t.scalableDimension,
            minCapacity: t.minCapacity,
            maxCapacity: t.maxCapacity,
            suspendedState: { ...t.suspendedState },
        });
        this.scalableTarget.node.addDependency(props.endpoint);
        const out = shape.scaleOut;
        this.scaleOutPolicy = new aws_applicationautoscaling_namespaceObject.CfnScalingPolicy(this, 'ScaleOut', {
            policyName: out.policyName,
            policyType: out.policyType,
            scalingTargetId: this.scalableTarget.ref,
            targetTrackingScalingPolicyConfiguration: {
                predefinedMetricSpecification: { predefinedMetricType: out.predefinedMetricType },
                targetValue: out.targetValue,
                scaleOutCooldown: out.scaleOutCooldownS,
                disableScaleIn: out.disableScaleIn,
            },
        });
        const inn = shape.scaleIn;
        this.scaleInPolicy = new aws_applicationautoscaling_namespaceObject.CfnScalingPolicy(this, 'ScaleIn', {
            policyName: inn.policyName,
            policyType: inn.policyType,
            scalingTargetId: this.scalableTarget.ref,
            stepScalingPolicyConfiguration: {
                adjustmentType: inn.adjustmentType,
                cooldown: inn.cooldownS,
                metricAggregationType: inn.metricAggregationType,
                stepAdjustments: [
                    {
                        metricIntervalUpperBound: inn.metricIntervalUpperBound,
                        scalingAdjustment: inn.scalingAdjustment,
                    },
                ],
            },
        });
        this.scaleInAlarm = alarmFromShape(this, 'ScaleInAlarm', inn.alarm);
        const policyArn = this.scaleInPolicy.ref; // Ref of a ScalingPolicy is its ARN
        this.scaleInAlarm.addAlarmAction({ bind: () => ({ alarmActionArn: policyArn }) });
    }
}

;// CONCATENATED MODULE: ./infra/lib/endpoint-observability.ts
/**
 * EndpointObservability: the dashboard and the alarms of the deployed policy shape (src/plan/policy-shape.ts) (5XX, queue
 * saturation, concurrency above target, service time), all from the same PolicyShape the
 * autoscaling construct deploys. The service-time alarm watches the container's own
 * FirstChunkLatency (dequeue to first audio byte, published as embedded metric format), not
 * ModelLatency, which includes the container's queue and so rises with load at the target.
 */





class EndpointObservability extends external_constructs_namespaceObject.Construct {
    alarms;
    dashboard;
    constructor(scope, id, props) {
        super(scope, id);
        const { shape } = props;
        const a = shape.alarms;
        const errors5xx = alarmFromShape(this, 'Errors5xx', a.errors5xx);
        const saturation = alarmFromShape(this, 'QueueSaturation', a.queueSaturation);
        const aboveTarget = alarmFromShape(this, 'ConcurrencyAboveTarget', a.concurrencyAboveTarget);
        const serviceTime = a.serviceTime ? alarmFromShape(this, 'ServiceTime', a.serviceTime) : null;
        this.alarms = [errors5xx, saturation, aboveTarget, ...(serviceTime ? [serviceTime] : [])];
        const dims = { EndpointName: shape.target.endpoint, VariantName: shape.target.variant };
        const sageMaker = (metricName, statistic, label) => new aws_cloudwatch_namespaceObject.Metric({
            namespace: 'AWS/SageMaker',
            metricName,
            dimensionsMap: dims,
            statistic,
            period: external_aws_cdk_lib_namespaceObject.Duration.minutes(1),
            label,
        });
        this.dashboard = new aws_cloudwatch_namespaceObject.Dashboard(this, 'Dashboard', {
            dashboardName: external_aws_cdk_lib_namespaceObject.Token.isUnresolved(props.region)
                ? undefined
                : `scalegate-${shape.target.endpoint}-${props.region}`,
            defaultInterval: external_aws_cdk_lib_namespaceObject.Duration.hours(3),
        });
        this.dashboard.addWidgets(new aws_cloudwatch_namespaceObject.GraphWidget({
            title: SCALING_METRIC_SHAPES[shape.scalingMetric].graphTitle,
            left: [
                metricOf(shape.scaleIn.alarm).with({
                    label: SCALING_METRIC_SHAPES[shape.scalingMetric].graphLabel,
                }),
            ],
            leftAnnotations: [
                { value: shape.scaleOut.targetValue, label: 'scale-out target', color: '#d62728' },
                { value: shape.scaleIn.alarm.threshold, label: 'scale-in threshold', color: '#2ca02c' },
            ],
            width: 12,
        }), new aws_cloudwatch_namespaceObject.GraphWidget({
            title: 'Service time: FirstChunkLatency p95 (ms, no queueing) vs the alarm; ModelLatency p95 (us, with queueing)',
            left: [
                new aws_cloudwatch_namespaceObject.Metric({
                    namespace: SERVICE_METRICS.namespace,
                    metricName: SERVICE_METRICS.metricName,
                    dimensionsMap: dims,
                    statistic: 'p95',
                    period: external_aws_cdk_lib_namespaceObject.Duration.minutes(1),
                    label: 'FirstChunkLatency p95 (ms)',
                }),
            ],
            right: [sageMaker('ModelLatency', 'p95', 'ModelLatency p95 (us)')],
            leftAnnotations: a.serviceTime
                ? [{ value: a.serviceTime.threshold, label: 'alarm: TTFAB p95 at concurrency 1 (ms)' }]
                : [],
            width: 12,
        }));
        this.dashboard.addWidgets(new aws_cloudwatch_namespaceObject.GraphWidget({
            title: 'Invocations and errors (Sum per minute)',
            left: [sageMaker('Invocations', 'Sum', 'Invocations')],
            right: [
                sageMaker('InvocationModelErrors', 'Sum', 'model errors (incl. 503 queue_saturated)'),
                sageMaker('Invocation5XXErrors', 'Sum', '5XX'),
                sageMaker('Invocation4XXErrors', 'Sum', '4XX'),
            ],
            width: 12,
        }), new aws_cloudwatch_namespaceObject.AlarmStatusWidget({
            title: 'scalegate alarms',
            alarms: this.alarms,
            width: 12,
        }));
    }
}

;// CONCATENATED MODULE: ./src/analysis/device-profile.ts

/** A rung the derivation can read: usable, completed requests, throughput and TTFAB p50/p95. */
const readable = (s) => s.usable && s.ok > 0 && s.achieved_rps > 0 && s.ttfab_p50_ms !== null && s.ttfab_p95_ms !== null;
function median(values) {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1
        ? sorted[mid]
        : (sorted[mid - 1] + sorted[mid]) / 2;
}
function rungsOf(steps) {
    const by = new Map();
    for (const s of steps.filter(readable))
        by.set(s.concurrency, [...(by.get(s.concurrency) ?? []), s]);
    return [...by.entries()]
        .sort(([a], [b]) => a - b)
        .map(([concurrency, group]) => {
        const latencies = group.flatMap((s) => (s.latency_p95_ms === null ? [] : [s.latency_p95_ms]));
        return {
            concurrency,
            rps: median(group.map((s) => s.achieved_rps)),
            p50: median(group.map((s) => s.ttfab_p50_ms)),
            p95: median(group.map((s) => s.ttfab_p95_ms)),
            latencyP95: latencies.length > 0 ? median(latencies) : null,
        };
    });
}
const Z95 = 1.6448536269514722;
/**
 * The log-normal shape whose p95 - p50 is `spreadMs` at mean `meanMs`:
 * mean * exp(-s^2/2) * (exp(z95 s) - 1) = spread, increasing in s on [0, 1.5] (bisection).
 */
function lognormalSigmaForSpread(meanMs, spreadMs) {
    if (!(spreadMs > 0))
        return 0;
    const spreadAt = (s) => meanMs * Math.exp((-s * s) / 2) * (Math.exp(Z95 * s) - 1);
    let low = 0;
    let high = 1.5;
    if (spreadAt(high) <= spreadMs)
        return high;
    for (let i = 0; i < 60; i++) {
        const mid = (low + high) / 2;
        if (spreadAt(mid) < spreadMs)
            low = mid;
        else
            high = mid;
    }
    return (low + high) / 2;
}
/** Share of X_max within which a rung counts as on the plateau. */
const PLATEAU = 0.95;
/** TTFAB / latency at or above which the model emits the whole utterance at the end. */
const AFTER_UTTERANCE = 0.95;
/**
 * The device of one instance, from a qmax artifact. `label` names the input in errors (e.g.
 * `--device artifacts/qmax-....json`); a ladder without a usable rung is a UsageError.
 */
function deriveDeviceProfile(qmax, label) {
    const rungs = rungsOf(qmax.steps);
    const lowest = rungs[0];
    if (!lowest) {
        throw new errors_UsageError(`${label}: no usable rung to derive a device from (a rung needs usable=true, completed requests, a throughput and TTFAB p50/p95; ${qmax.steps.length} step(s), none qualifies). Pass a qmax artifact with at least one usable rung, e.g. from \`scalegate qmax --ladder fixed\`.`);
    }
    const xMax = Math.max(...rungs.map((r) => r.rps));
    const plateau = rungs.filter((r) => r.rps >= PLATEAU * xMax);
    const xSat = median(plateau.map((r) => r.rps));
    const c0 = lowest.concurrency;
    const lanesRatio = (xSat * c0) / lowest.rps;
    const lanes = Math.max(1, Math.floor(lanesRatio + 0.1));
    const lanesIdentified = c0 === 1 || lowest.rps < PLATEAU * xMax;
    const serviceMeanMs = (1000 * lanes) / xSat;
    const clientShareMs = c0 <= lanes ? (1000 * c0) / lowest.rps - serviceMeanMs : null;
    const spreadMs = Math.max(0, lowest.p95 - lowest.p50);
    const stacked = Math.max(1, c0 / lanes);
    const sigma = lognormalSigmaForSpread(serviceMeanMs, spreadMs / Math.sqrt(stacked));
    const ratio = lowest.latencyP95 && lowest.latencyP95 > 0 ? lowest.p95 / lowest.latencyP95 : 1;
    const afterUtterance = ratio >= AFTER_UTTERANCE;
    const instanceType = qmax.fingerprint.instance_type;
    return {
        profile: {
            source: `${qmax.model_name} ${instanceType} qmax ${qmax.run_id}`,
            lanes,
            service_mean_ms: serviceMeanMs,
            service_sigma: sigma,
            first_audio_fraction: afterUtterance ? 1 : Math.max(0.01, Math.min(1, ratio)),
        },
        instance_type: instanceType,
        rungs: rungs.map((r) => r.concurrency),
        lowest_rung: c0,
        x_lowest_rps: lowest.rps,
        plateau_rungs: plateau.map((r) => r.concurrency),
        x_plateau_rps: xSat,
        lanes_ratio: lanesRatio,
        lanes_identified: lanesIdentified,
        client_share_ms: clientShareMs,
        ttfab_spread_ms: spreadMs,
        emits: afterUtterance ? 'after_utterance' : 'streaming',
    };
}
/**
 * The start-up of one new instance, from a ttotal artifact's timeline: provisioning (capacity
 * request to container start), the container's stage markers (elapsed since its start), and the
 * wait from ready to in service. Stages a timeline lacks take the time of the next one it has.
 */
function deriveStartupProfile(ttotal, label) {
    const at = new Map();
    for (const t of ttotal.timeline)
        at.set(t.stage, Date.parse(t.at));
    const need = (stage, alternatives = []) => {
        for (const name of [stage, ...alternatives]) {
            const ms = at.get(name);
            if (ms !== undefined && Number.isFinite(ms))
                return ms;
        }
        throw new UsageError(`${label}: the scale-out timeline has no ${[stage, ...alternatives].join(' or ')} stage (stages: ${[...at.keys()].join(', ') || 'none'}), so its start-up cannot be replayed. Pass a ttotal artifact whose scale-out reached in_service, e.g. from \`scalegate ttotal\`.`);
    };
    const desired = need('desired_set');
    const started = need('container_started', ['instance_logging']);
    const ready = need('ready', ['warmup_done']);
    const inService = need('in_service');
    const stage = (name, fallback) => Math.max(0, ((at.get(name) ?? fallback) - started) / 1000);
    const readyS = stage('ready', ready);
    const warmupS = Math.min(stage('warmup_done', ready), readyS);
    const weightsS = Math.min(stage('weights_ready', ready), warmupS);
    const frameworkS = Math.min(stage('framework_init', ready), weightsS);
    const provisionS = (started - desired) / 1000;
    const afterReadyS = (inService - ready) / 1000;
    if (!(provisionS >= 0) || !(afterReadyS >= 0)) {
        throw new UsageError(`${label}: the scale-out timeline is out of order (container start ${provisionS.toFixed(3)} s after desired_set, in_service ${afterReadyS.toFixed(3)} s after ready). Pass a ttotal artifact with a consistent timeline.`);
    }
    return {
        source: `${ttotal.model_name} ${ttotal.fingerprint.instance_type} ttotal ${ttotal.run_id}`,
        provision_s: provisionS,
        framework_init_s: frameworkS,
        weights_ready_s: weightsS,
        warmup_done_s: warmupS,
        ready_s: readyS,
        in_service_after_ready_s: afterReadyS,
    };
}

;// CONCATENATED MODULE: ./src/analysis/ttotal.ts



/** Without a deployed scale-out policy the detection lag is bounded, not measured (seconds). */
const POLICY_LAG_BOUND_S = 60;
const MARKER_STAGES = (/* unused pure expression or super */ null && ([
    'container_start',
    'framework_init',
    'weights_ready',
    'warmup_done',
    'ready',
]));
const MARKER = /=== STAGE ([a-z_]+) t=(\S+) elapsed_s=(-?[0-9]+(?:\.[0-9]+)?) ===/;
/** `=== STAGE <name> t=<ISO>Z elapsed_s=<s> ===` -> the marker; null for any other line. */
function parseStageMarker(message) {
    const m = MARKER.exec(message);
    if (!m)
        return null;
    const stage = m[1];
    if (!MARKER_STAGES.includes(stage))
        return null;
    const atMs = Date.parse(m[2]);
    if (!Number.isFinite(atMs))
        return null;
    return { stage: stage, atMs, elapsedS: Number(m[3]) };
}
/** The first marker of each stage, in the order they appear. */
function stageMarkers(messages) {
    const seen = new Map();
    for (const message of messages) {
        const marker = parseStageMarker(message);
        if (marker && !seen.has(marker.stage))
            seen.set(marker.stage, marker);
    }
    return [...seen.values()];
}
/** Timeline stage of each marker: the contract's `container_start` is the timeline's `container_started`. */
const TIMELINE_STAGE_OF = {
    container_start: 'container_started',
    framework_init: 'framework_init',
    weights_ready: 'weights_ready',
    warmup_done: 'warmup_done',
    ready: 'ready',
};
/** The stages in the order they happen (the artifact schema's list). */
const TIMELINE_ORDER = (/* unused pure expression or super */ null && (ttotalStageNames));
const iso = (ms) => new Date(ms).toISOString();
const round3 = (s) => Math.round(s * 1000) / 1000;
/**
 * Timeline, durations (consecutive observed stages in contract order), shares of T_total (only
 * for durations inside [desired_set, end]), the dominant stage, missing stages and notes. Pure.
 */
function analyseTimeline(obs) {
    const notes = [];
    const entries = new Map();
    entries.set('load_applied', {
        stage: 'load_applied',
        at: iso(obs.loadAppliedMs),
        source: 'probe start',
        bounded: false,
        note: 'probe established before the trigger; not the start of the clock',
    });
    entries.set('desired_set', {
        stage: 'desired_set',
        at: iso(obs.desiredSetMs),
        source: 'UpdateEndpointWeightsAndCapacities call',
        bounded: false,
        note: 'the clock starts here',
    });
    if (obs.instanceLogging) {
        entries.set('instance_logging', {
            stage: 'instance_logging',
            at: iso(obs.instanceLogging.firstEventMs),
            source: `log stream ${obs.instanceLogging.stream} firstEventTimestamp`,
            bounded: true,
            note: 'upper bound on provisioning plus image pull, which a container cannot time itself',
        });
    }
    const missing = [];
    const byStage = new Map(obs.markers.map((m) => [m.stage, m]));
    for (const stage of MARKER_STAGES) {
        const marker = byStage.get(stage);
        const name = TIMELINE_STAGE_OF[stage];
        if (marker) {
            entries.set(name, {
                stage: name,
                at: iso(marker.atMs),
                source: `container log marker (elapsed_s=${marker.elapsedS.toFixed(3)})`,
                bounded: false,
                note: null,
            });
        }
        else {
            missing.push(name);
        }
    }
    if (!byStage.has('container_start')) {
        const first = MARKER_STAGES.map((s) => byStage.get(s)).find((m) => m !== undefined);
        if (first) {
            entries.set('container_started', {
                stage: 'container_started',
                at: iso(first.atMs - first.elapsedS * 1000),
                source: 'derived from elapsed_s',
                bounded: true,
                note: `reconstructed as ${first.stage} minus its elapsed_s=${first.elapsedS.toFixed(3)}s; no container_start line was in the stream`,
            });
            notes.push(`the container_start marker is missing; container_started is reconstructed from ${first.stage} (labelled bounded)`);
        }
    }
    if (obs.inService) {
        entries.set('in_service', {
            stage: 'in_service',
            at: iso(obs.inService.atMs),
            source: 'DescribeEndpoint CurrentInstanceCount',
            bounded: true,
            note: `first poll that reported the extra instance; it arrived after the previous poll at ${iso(obs.inService.previousPollMs)} (poll interval ${obs.inService.pollS} s is the bound)`,
        });
    }
    else {
        missing.push('in_service');
    }
    if (obs.recovered) {
        const r = obs.recovered;
        entries.set('traffic_recovered', {
            stage: 'traffic_recovered',
            at: iso(r.startMs),
            source: 'client-side p95 recovery',
            bounded: true,
            note: `probe p95 TTFAB ${Math.round(r.p95Ms)} ms held at or under ${Math.round(r.targetMs)} ms across ${r.samples} completions in the following ${r.windowS} s window`,
        });
    }
    else {
        missing.push('traffic_recovered');
    }
    if (!obs.instanceLogging)
        missing.splice(0, 0, 'instance_logging');
    const timeline = TIMELINE_ORDER.map((s) => entries.get(s)).filter((e) => e !== undefined);
    const endStage = entries.has('traffic_recovered')
        ? 'traffic_recovered'
        : entries.has('in_service')
            ? 'in_service'
            : null;
    const endIndex = endStage ? TIMELINE_ORDER.indexOf(endStage) : -1;
    const startIndex = TIMELINE_ORDER.indexOf('desired_set');
    const ms = (e) => Date.parse(e.at);
    const tTotalS = endStage
        ? round3((ms(entries.get(endStage)) - obs.desiredSetMs) / 1000)
        : null;
    const durations = [];
    for (let i = 1; i < timeline.length; i++) {
        const from = timeline[i - 1];
        const to = timeline[i];
        let seconds = round3((ms(to) - ms(from)) / 1000);
        if (seconds < 0) {
            notes.push(from.stage === 'instance_logging'
                ? `${to.stage} (the container's own clock) is ${Math.abs(seconds)} s before instance_logging (when CloudWatch Logs received the stream's first line, an upper bound); counted as 0`
                : `${to.stage} is stamped ${Math.abs(seconds)} s before ${from.stage} (different clocks); counted as 0`);
            seconds = 0;
        }
        const fromIndex = TIMELINE_ORDER.indexOf(from.stage);
        const toIndex = TIMELINE_ORDER.indexOf(to.stage);
        const inside = tTotalS !== null && tTotalS > 0 && fromIndex >= startIndex && toIndex <= endIndex;
        durations.push({
            from: from.stage,
            to: to.stage,
            seconds,
            bounded: from.bounded || to.bounded,
            share: inside ? Math.round((seconds / tTotalS) * 10_000) / 10_000 : null,
        });
    }
    const insideDurations = durations.filter((d) => d.share !== null);
    const top = insideDurations.reduce((best, d) => (best === null || d.seconds > best.seconds ? d : best), null);
    if (endStage === 'in_service') {
        notes.push('traffic did not recover within the wait: T_total ends at in_service and is a lower bound (the instance was reported in service, but the probe p95 never fell to the target)');
    }
    return {
        timeline,
        durations,
        dominant: top ? { from: top.from, to: top.to, seconds: top.seconds } : null,
        missing,
        tTotalS,
        endStage,
        notes,
    };
}
/** p95 of the TTFABs of requests dispatched in [fromMs, toMs), with misses as +Infinity. */
function windowP95(samples, fromMs, toMs) {
    const values = samples.filter((s) => s.dispatchMs >= fromMs && s.dispatchMs < toMs).map((s) => s.ttfabMs);
    return { p95: quantileWithMisses(sortedAscending(values), 0.95), n: values.length };
}
/**
 * The first window [s, s + windowS) with s >= fromMs (stepping by stepMs, window end <= horizon)
 * holding at least minSamples requests whose p95 TTFAB is at or under targetMs. Pure.
 */
function findRecoveryWindow(samples, options) {
    const windowMs = options.windowS * 1000;
    for (let s = options.fromMs; s + windowMs <= options.horizonMs; s += options.stepMs) {
        const { p95, n } = windowP95(samples, s, s + windowMs);
        if (p95 !== null && n >= options.minSamples && p95 <= options.targetMs) {
            return { startMs: s, windowS: options.windowS, samples: n, p95Ms: p95, targetMs: options.targetMs };
        }
    }
    return null;
}
/** The ladder's p95 TTFAB at `concurrency` (usable steps only; median across runs), null if none. */
function ladderP95(qmax, concurrency) {
    const values = qmax.steps
        .filter((s) => s.concurrency === concurrency && s.usable && s.ttfab_p95_ms !== null)
        .map((s) => s.ttfab_p95_ms)
        .sort((a, b) => a - b);
    if (values.length === 0)
        return null;
    return values[Math.floor((values.length - 1) / 2)];
}
/** The concurrencies the ladder measured usably, ascending. */
const usableRungs = (qmax) => [...new Set(qmax.steps.filter((s) => s.usable && s.ttfab_p95_ms !== null).map((s) => s.concurrency))].sort((a, b) => a - b);
/** Probe concurrencies N the ladder supports: usable at N and N/2, N <= Q_max. */
function probeCandidates(qmax) {
    const rungs = new Set(usableRungs(qmax));
    return [...rungs].filter((n) => n % 2 === 0 && rungs.has(n / 2) && n <= Math.max(qmax.q_max, 1));
}
/** Policy detection lag from the deployed scale-out alarms (fastest alarm), else the bound. */
function policyLag(timings, publicationDelayS) {
    if (timings.length === 0) {
        return {
            lagS: POLICY_LAG_BOUND_S,
            bounded: true,
            source: `bound of ${POLICY_LAG_BOUND_S} s: no scale-out policy is deployed on the variant, so there is no alarm to read the detection lag from`,
        };
    }
    const scored = timings.map((t) => {
        const delay = publicationDelayS ?? t.periodS;
        return { t, delay, lag: t.periodS * t.datapointsToAlarm + delay };
    });
    const best = scored.reduce((a, b) => (b.lag < a.lag ? b : a));
    const delayText = publicationDelayS === null
        ? `${best.delay} s CloudWatch publication delay (assumed: one period, the datapoint exists once its period closes)`
        : `${best.delay} s CloudWatch publication delay (given)`;
    return {
        lagS: best.lag,
        bounded: false,
        source: `alarm ${best.t.alarmName} of policy ${best.t.policyName}: ${best.t.datapointsToAlarm} datapoints x ${best.t.periodS} s + ${delayText}`,
    };
}
/**
 * A T_total that ends at in_service (the instance came into service but the probe never
 * recovered) is a lower bound: planning on it would under-size headroom. Artifacts from before
 * `t_total_end_stage` was recorded are judged by their missing stages.
 */
function ttotal_isLowerBound(ttotal) {
    if (!ttotal)
        return false;
    if (ttotal.t_total_end_stage !== undefined)
        return ttotal.t_total_end_stage === 'in_service';
    return ttotal.missing_stages.includes('traffic_recovered');
}
const DIFFERENCE_LABEL = {
    instance_type: 'instance type',
    image_digest: 'image digest',
    container_env: 'container environment',
    region: 'region',
    request: 'request shape',
};
/** One line per fingerprint field on which the qmax artifact and the live endpoint disagree. */
function mismatchWarnings(differences, endpoint) {
    return differences.map((d) => `${DIFFERENCE_LABEL[d.field] ?? d.field}: qmax measured ${d.left}, endpoint ${endpoint} runs ${d.right}`);
}
const finiteOrNull = (v) => (v !== null && Number.isFinite(v) ? v : null);
/** The ttotal artifact of one completed scale-out: timeline, durations, notes and provenance. */
function assembleTtotalArtifact(r) {
    const analysis = analyseTimeline(r.obs);
    const notes = [
        "trigger was --force-desired under a scaling freeze, so the policy's own detection lag is not in this number; it is reported separately as policy_lag_s, and the planner adds it (T_plan = t_total_s + policy_lag_s).",
        ...analysis.notes,
        ...r.mismatchWarnings.map((w) => `WARNING: configuration mismatch allowed (--allow-config-mismatch): ${w}`),
    ];
    if (r.probeConcurrency > r.qmax.q_max)
        notes.push(`the probe concurrency ${r.probeConcurrency} is above Q_max ${r.qmax.q_max}: the single instance was over its SLO before the trigger`);
    if (r.keptJournal !== null) {
        notes.push(`restoring the endpoint failed (${r.restore.errors.join('; ')}); the journal ${r.keptJournal} is kept: run \`scalegate thaw --model ${r.modelName}\``);
    }
    return {
        schema_version: 1,
        kind: 'ttotal',
        model_name: r.modelName,
        endpoint: r.endpoint,
        run_id: r.runId,
        measured_at: iso(r.obs.desiredSetMs),
        fingerprint: r.fingerprint,
        transport: r.transport,
        trigger: r.trigger,
        qmax_run_id: r.qmax.run_id,
        t_total_s: Math.max(analysis.tTotalS ?? 0, 0.001),
        policy_lag_s: r.lag.lagS,
        policy_lag_bounded: r.lag.bounded,
        policy_lag_source: r.lag.source,
        instance_id: r.instanceId,
        from_instances: r.fromInstances,
        to_instances: r.toInstances,
        probe_concurrency: r.probeConcurrency,
        p95_before_ms: finiteOrNull(r.before.p95),
        p95_recovered_target_ms: r.targetMs,
        p95_after_ms: finiteOrNull(r.after.p95),
        timeline: analysis.timeline,
        durations: analysis.durations,
        dominant_stage: analysis.dominant,
        missing_stages: analysis.missing,
        notes,
        provenance: { origin: 'measured', tool: r.tool, note: null },
        t_total_end_stage: analysis.endStage ?? undefined,
        config_mismatch_allowed: r.mismatchWarnings.length > 0,
        mismatch_warnings: r.mismatchWarnings,
        requests_before: r.before.n,
        requests_after: r.obs.recovered ? r.after.n : null,
        settings: r.settings,
        quota: r.quota,
        restore: r.restore,
    };
}

;// CONCATENATED MODULE: ./src/stats/surge.ts
/**
 * Will one instance survive a surge until the scale-out lands? Computed exactly.
 *
 * Queue model (per instance; least-outstanding routing spreads a surge evenly, so one instance
 * stands for the fleet): a birth-death chain on n = requests in flight (queued + executing),
 * n = 0..Q_max.
 * - Before the surge the policy holds each instance at its target concurrency, so the run
 *   starts at n0 = round(C_scale_max) with arrivals at lambda0 = X(C_scale_max), the measured
 *   throughput at that concurrency (the rate that keeps n there).
 * - At t = 0 the surge multiplies arrivals by k: Poisson arrivals at rate k * lambda0.
 * - Departures are state-dependent at the measured throughput curve X(n) (interpolated between
 *   usable ladder rungs; flat beyond the last), so a serial server (X flat) and a parallel one
 *   (X rising with n) are both modelled from data, not from an M/M/c assumption.
 * - The container admits at most Q_max requests; an arrival that finds n = Q_max is rejected:
 *   that is an overflow. The run lasts T_plan, the time until new capacity serves.
 *
 * The overflow probability within T_plan is a first-passage probability of this finite chain,
 * computed by uniformization (Jensen's method) with the overflow as an absorbing state:
 *   P(no overflow by T) = sum_k Poisson(k; Lambda T) |v0 P^k|,  P = I + Q / Lambda,
 * where Q is the generator restricted to 0..Q_max and |.| the mass still in it. All terms are
 * non-negative (no cancellation); the Poisson tail left out is below 1e-12. The work is bounded
 * whatever the rates: the iteration stops as soon as the mass is absorbed (< 1e-14 left), or as
 * soon as its shape has converged to the quasi-stationary distribution (after which every step
 * multiplies the mass by the same factor r and the rest of the sum has a closed form), or when a
 * work budget runs out, in which case the result is a rigorous LOWER bound, labelled so. The
 * fluid (deterministic) time-to-overflow, dn/dt = k lambda0 - X(n), is returned beside it as the
 * intuition, integrated exactly on the piecewise-linear curve.
 */
/** Linear interpolation of X(n) between measured points; X(0) = 0; flat beyond the ends. */
function throughputAt(curve, concurrency) {
    if (curve.length === 0 || concurrency <= 0)
        return 0;
    const first = curve[0];
    if (concurrency <= first.concurrency) {
        // Below the first rung throughput falls to 0 at n = 0 (an idle server serves nothing).
        return (first.rps * concurrency) / first.concurrency;
    }
    for (let i = 1; i < curve.length; i++) {
        const low = curve[i - 1];
        const high = curve[i];
        if (concurrency <= high.concurrency) {
            const fraction = (concurrency - low.concurrency) / (high.concurrency - low.concurrency);
            return low.rps + (high.rps - low.rps) * fraction;
        }
    }
    return curve[curve.length - 1].rps;
}
/** State-updates one overflow computation may spend (~20 ms): `plan` stays well under 1 s. */
const DEFAULT_WORK_BUDGET = 10_000_000;
const POISSON_TAIL = 1e-12;
const ABSORBED = 1e-14;
const SHAPE_CONVERGED = 1e-12;
/** log P(X >= k) for X ~ Poisson(mean), k >= 0, summed in log space (O(k + sqrt(mean)) terms). */
function logPoissonUpperTail(mean, k) {
    if (k <= 0)
        return 0;
    if (mean <= 0)
        return Number.NEGATIVE_INFINITY;
    const logMean = Math.log(mean);
    // log pmf at j, incrementally from j = 0.
    if (k > mean) {
        // Upper tail directly: terms fall geometrically past the mode.
        let lp = -mean;
        for (let j = 1; j <= k; j++)
            lp += logMean - Math.log(j);
        let sum = 0;
        let term = 1;
        for (let j = k; term > 1e-17 * sum || sum === 0; j++) {
            sum += term;
            term *= mean / (j + 1);
            if (j > k + 1e7)
                break;
        }
        return lp + Math.log(sum);
    }
    // 1 - lower tail; the lower tail summed relative to its largest term (j = k - 1, as k <= mean).
    const logs = new Float64Array(k);
    let lp = -mean;
    for (let j = 0; j < k; j++) {
        if (j > 0)
            lp += logMean - Math.log(j);
        logs[j] = lp;
    }
    const top = logs[k - 1];
    let sum = 0;
    for (const l of logs)
        sum += Math.exp(l - top);
    const lower = Math.exp(top) * sum;
    return Math.log(Math.max(0, 1 - lower));
}
/**
 * The overflow probability of the chain within the horizon, by uniformization. Deterministic;
 * the work is at most `workBudget` state-updates.
 */
function overflowProbability(input, options = {}) {
    const budget = options.workBudget ?? DEFAULT_WORK_BUDGET;
    const limit = Math.max(1, Math.floor(input.queueLimit));
    const states = limit + 1;
    const lambda = input.arrivalRate;
    let v = new Float64Array(states);
    if (typeof input.start === 'number') {
        v[Math.min(limit, Math.max(0, Math.round(input.start)))] = 1;
    }
    else {
        let total = 0;
        for (let n = 0; n < states; n++)
            total += input.start[n] ?? 0;
        for (let n = 0; n < states; n++)
            v[n] = (input.start[n] ?? 0) / total;
    }
    const base = { states, method: 'uniformization' };
    if (!(lambda > 0) || !(input.horizonS > 0)) {
        return { ...base, probability: 0, exact: true, upperBound: 0, steps: 0, work: 0, ended: 'no-arrivals' };
    }
    const mu = new Float64Array(states);
    let muMax = 0;
    for (let n = 1; n < states; n++) {
        mu[n] = throughputAt(input.curve, n);
        if (mu[n] > muMax)
            muMax = mu[n];
    }
    // 5 % above the fastest total rate: every state keeps a self-loop, so the chain is aperiodic
    // and its shape converges (a flat curve would otherwise make it alternate between parities).
    const Lambda = 1.05 * (lambda + muMax);
    const up = lambda / Lambda;
    const down = new Float64Array(states);
    const stay = new Float64Array(states);
    for (let n = 0; n < states; n++) {
        down[n] = mu[n] / Lambda;
        stay[n] = 1 - up - down[n];
    }
    const mean = Lambda * input.horizonS;
    const logMean = Math.log(mean);
    let logWeight = -mean; // log Poisson(k; mean), k = 0
    let weightSum = 0;
    let survival = 0; // sum_k w_k |v_k|
    let mass = 1;
    let next = new Float64Array(states);
    const maxSteps = Math.max(1, Math.floor(budget / states));
    let k = 0;
    const finish = (probability, upperBound, exact, ended) => ({
        ...base,
        method: exact ? 'uniformization' : 'uniformization-lower-bound',
        probability: Math.min(1, Math.max(0, probability)),
        upperBound: Math.min(1, Math.max(0, upperBound)),
        exact,
        steps: k,
        work: k * states,
        ended,
    });
    for (;;) {
        const weight = Math.exp(logWeight);
        survival += weight * mass;
        weightSum += weight;
        if (k >= mean && 1 - weightSum <= POISSON_TAIL) {
            // Every step left carries at most the Poisson mass left (< 1e-12).
            return finish(1 - survival, 1 - survival, true, 'horizon');
        }
        if (mass < ABSORBED) {
            // The rest of the sum is at most (1 - weightSum) * mass < 1e-14.
            return finish(1 - survival, 1 - survival, true, 'absorbed');
        }
        if (k >= maxSteps) {
            // |v_j| <= |v_k| for j > k: the unseen terms are at most (1 - weightSum) * mass.
            const survivalHigh = survival + Math.max(0, 1 - weightSum) * mass;
            return finish(1 - survivalHigh, 1 - survival, false, 'budget');
        }
        // One step of the uniformized chain; an arrival at Q_max leaves (the overflow).
        next[0] = v[0] * stay[0] + v[1] * down[1];
        for (let n = 1; n < limit; n++) {
            next[n] =
                v[n] * stay[n] +
                    v[n - 1] * up +
                    v[n + 1] * down[n + 1];
        }
        next[limit] = v[limit] * stay[limit] + v[limit - 1] * up;
        let nextMass = 0;
        for (let n = 0; n < states; n++)
            nextMass += next[n];
        // Every 16 steps: has the shape converged? From then on each step multiplies the mass by the
        // same ratio r, and the rest of the sum has a closed form.
        let converged = false;
        if ((k & 15) === 15 && k > states && nextMass > 0) {
            let shapeChange = 0;
            for (let n = 0; n < states; n++) {
                shapeChange += Math.abs(next[n] / nextMass - v[n] / mass);
            }
            converged = shapeChange < SHAPE_CONVERGED;
        }
        const ratio = nextMass / mass;
        [v, next] = [next, v];
        k++;
        logWeight += logMean - Math.log(k);
        mass = nextMass;
        if (converged) {
            // sum_{j >= k} w_j mass r^(j-k) = mass r^-k e^(-mean (1 - r)) P(Poisson(mean r) >= k).
            const r = ratio;
            const logTail = Math.log(mass) - k * Math.log(r) - mean * (1 - r) + logPoissonUpperTail(mean * r, k);
            const tail = Math.exp(logTail);
            return finish(1 - (survival + tail), 1 - (survival + tail), true, 'quasi-stationary');
        }
    }
}
/**
 * Stationary distribution of the chain with arrivals at `arrivalRate` (arrivals at Q_max turned
 * away): the state a fleet sits in before a surge when it is held at that load.
 */
function stationaryDistribution(curve, queueLimit, arrivalRate) {
    const limit = Math.max(1, Math.floor(queueLimit));
    const logs = new Float64Array(limit + 1);
    for (let n = 1; n <= limit; n++) {
        const mu = throughputAt(curve, n);
        logs[n] = logs[n - 1] + (mu > 0 ? Math.log(arrivalRate / mu) : Number.POSITIVE_INFINITY);
    }
    let top = Number.NEGATIVE_INFINITY;
    for (const l of logs)
        if (l > top)
            top = l;
    const pi = new Float64Array(limit + 1);
    let total = 0;
    for (let n = 0; n <= limit; n++) {
        pi[n] = Number.isFinite(top) ? Math.exp(logs[n] - top) : n === limit ? 1 : 0;
        total += pi[n];
    }
    for (let n = 0; n <= limit; n++)
        pi[n] = pi[n] / total;
    return pi;
}
/**
 * Exact time for the fluid queue dn/dt = arrivalRate - X(n) to rise from `start` to `limit`; null
 * when it never does (or not within `giveUpAfterS`). X is piecewise linear in n, so each piece
 * integrates in closed form: O(number of rungs), whatever the rates.
 */
function fluidOverflowTime(curve, start, limit, arrivalRate, giveUpAfterS) {
    if (start >= limit)
        return 0;
    // Breakpoints of X(n): 0, every rung, then flat.
    const knots = [0, ...curve.map((p) => p.concurrency)].filter((c, i, all) => i === 0 || c > all[i - 1]);
    let n = start;
    let t = 0;
    while (n < limit) {
        const nextKnot = knots.find((c) => c > n) ?? Number.POSITIVE_INFINITY;
        const end = Math.min(limit, nextKnot);
        const x0 = throughputAt(curve, n);
        const x1 = throughputAt(curve, end);
        const g0 = arrivalRate - x0;
        const g1 = arrivalRate - x1;
        if (g0 <= 0)
            return null;
        if (g1 <= 0)
            return null; // growth reaches 0 inside this piece: the fluid stops below the limit
        const slope = (x1 - x0) / (end - n); // X(m) = x0 + slope (m - n)
        t += Math.abs(slope) < 1e-15 ? (end - n) / g0 : Math.log(g0 / g1) / slope;
        if (t > giveUpAfterS)
            return null;
        n = end;
    }
    return t;
}
/** Above this overflow probability within T_plan a surge is a warning. */
const SURGE_OVERFLOW_WARN = 0.1;
const BISECTION_STEPS = 8;
/**
 * The surge, the no-surge baseline beside it, the cause, and the change that would bring the
 * probability within tolerance. At most 2 + 8 overflow computations, each within its budget.
 */
function analyzeSurge(input) {
    const warn = input.warnAbove ?? SURGE_OVERFLOW_WARN;
    const limit = Math.max(1, Math.floor(input.queueLimit));
    const start = Math.min(limit, Math.max(0, Math.round(input.targetConcurrency)));
    const baseRate = throughputAt(input.curve, input.targetConcurrency);
    let capacityRps = 0;
    for (let n = 1; n <= limit; n++)
        capacityRps = Math.max(capacityRps, throughputAt(input.curve, n));
    let saturationConcurrency = limit;
    for (let n = limit; n >= 1; n--)
        if (throughputAt(input.curve, n) >= 0.99 * capacityRps)
            saturationConcurrency = n;
    let evaluations = 0;
    let work = 0;
    let exact = true;
    const overflow = (arrivalRate, from) => {
        const result = overflowProbability({ curve: input.curve, queueLimit: limit, arrivalRate, start: from, horizonS: input.horizonS }, { workBudget: input.workBudget });
        evaluations++;
        work += result.work;
        return result;
    };
    const surge = overflow(input.surgeRatio * baseRate, start);
    const baseline = overflow(baseRate, start);
    exact = surge.exact && baseline.exact;
    // Causes are named from lower bounds: a probability that is only bounded is never overstated.
    let cause = 'none';
    let survivableSurgeRatio = null;
    let headroomUtilization = null;
    if (baseline.probability > warn) {
        cause = 'no-headroom';
        // Largest u with P(overflow | held at u * capacity, then a k surge) <= warn; P rises with u.
        let lo = 0;
        let hi = 1;
        for (let i = 0; i < BISECTION_STEPS; i++) {
            const u = (lo + hi) / 2;
            const held = stationaryDistribution(input.curve, limit, u * capacityRps);
            // Judged on the upper bound: a recommendation must hold even where the budget ran out.
            if (overflow(input.surgeRatio * u * capacityRps, held).upperBound <= warn)
                lo = u;
            else
                hi = u;
        }
        headroomUtilization = lo;
    }
    else if (surge.probability > warn) {
        cause = 'surge';
        let lo = 1;
        let hi = input.surgeRatio;
        for (let i = 0; i < BISECTION_STEPS; i++) {
            const k = (lo + hi) / 2;
            if (overflow(k * baseRate, start).upperBound <= warn)
                lo = k;
            else
                hi = k;
        }
        survivableSurgeRatio = lo;
    }
    return {
        start,
        baseRate,
        arrivalRate: input.surgeRatio * baseRate,
        capacityRps,
        utilization: capacityRps > 0 ? baseRate / capacityRps : 0,
        saturationConcurrency,
        surge,
        baseline,
        fluidOverflowS: fluidOverflowTime(input.curve, start, limit, input.surgeRatio * baseRate, input.horizonS * 10),
        cause,
        survivableSurgeRatio,
        headroomUtilization,
        evaluations,
        work,
        exact,
    };
}
/**
 * The distribution of requests in flight after `horizonS` of Poisson arrivals at `arrivalRate`,
 * from `start` (arrivals at Q_max turned away, no absorption), by uniformization. Where the
 * work budget runs out the stationary distribution at the same rate is returned instead: it is
 * stochastically larger than any state reached from a lighter load, so never optimistic.
 */
function transientDistribution(input, options = {}) {
    const limit = Math.max(1, Math.floor(input.queueLimit));
    const states = limit + 1;
    const lambda = input.arrivalRate;
    let v = new Float64Array(states);
    if (typeof input.start === 'number')
        v[Math.min(limit, Math.max(0, Math.round(input.start)))] = 1;
    else
        for (let n = 0; n < states; n++)
            v[n] = input.start[n] ?? 0;
    if (!(lambda > 0) || !(input.horizonS > 0))
        return { distribution: v, exact: true };
    const mu = new Float64Array(states);
    let muMax = 0;
    for (let n = 1; n < states; n++) {
        mu[n] = throughputAt(input.curve, n);
        muMax = Math.max(muMax, mu[n]);
    }
    const Lambda = 1.05 * (lambda + muMax);
    const mean = Lambda * input.horizonS;
    const budget = options.workBudget ?? DEFAULT_WORK_BUDGET;
    if (mean * states > budget) {
        return { distribution: stationaryDistribution(input.curve, limit, lambda), exact: false };
    }
    const up = lambda / Lambda;
    const out = new Float64Array(states);
    let next = new Float64Array(states);
    let logWeight = -mean;
    let weightSum = 0;
    const logMean = Math.log(mean);
    for (let k = 0;; k++) {
        const weight = Math.exp(logWeight);
        for (let n = 0; n < states; n++)
            out[n] = out[n] + weight * v[n];
        weightSum += weight;
        // Past mean + 12 sd the Poisson tail is below 1e-30 (the sum's rounding may never reach 1e-12).
        if (k >= mean && (1 - weightSum <= POISSON_TAIL || k > mean + 12 * Math.sqrt(mean) + 20))
            break;
        for (let n = 0; n < states; n++) {
            const down = mu[n] / Lambda;
            const upHere = n < limit ? up : 0; // at Q_max an arrival is turned away: no move
            const stay = 1 - upHere - down;
            next[n] = v[n] * stay;
        }
        for (let n = 0; n < limit; n++)
            next[n + 1] = next[n + 1] + v[n] * up;
        for (let n = 1; n < states; n++)
            next[n - 1] = next[n - 1] + v[n] * (mu[n] / Lambda);
        [v, next] = [next, v];
        logWeight += logMean - Math.log(k + 1);
    }
    let total = 0;
    for (let n = 0; n < states; n++)
        total += out[n];
    for (let n = 0; n < states; n++)
        out[n] = out[n] / total;
    return { distribution: out, exact: true };
}

;// CONCATENATED MODULE: ./src/plan/remeasure.ts
/**
 * A re-measurement command for a fix. It names the calibration copy of the endpoint: the freezing
 * commands refuse the model's own (production) endpoint, and a fix must be runnable as written.
 */
const remeasure = (command, model, rest = '') => `\`scalegate ${command} --model ${model} --endpoint <endpoint>-calibration${rest}\``;

;// CONCATENATED MODULE: ./src/plan/open-loop.ts

/**
 * The highest concurrency whose measured throughput (interpolated between usable rungs) is at
 * most `rps`: the concurrency target that keeps an instance at or below that rate. null when even
 * the lowest measured rung runs faster (no concurrency target can express it).
 */
function concurrencyForThroughput(curve, rps) {
    const points = [...curve].sort((a, b) => a.concurrency - b.concurrency);
    const first = points[0];
    if (!first || first.rps > rps)
        return null;
    let best = first.concurrency;
    for (let i = 0; i + 1 < points.length; i++) {
        const a = points[i];
        const b = points[i + 1];
        if (b.rps <= rps) {
            best = b.concurrency;
            continue;
        }
        if (a.rps <= rps) {
            // Crosses rps between a and b: the concurrency where the line reaches it.
            best = a.concurrency + ((rps - a.rps) * (b.concurrency - a.concurrency)) / (b.rps - a.rps);
        }
        break;
    }
    return best;
}
const fmt = (v, digits = 2) => v.toFixed(digits);
const pct = (v) => `${(v * 100).toFixed(1)} %`;
/** lambda_max with its provenance, as every output prints it. */
function lambdaMaxProvenance(g) {
    if (g.lambda_max_rps === 0)
        return 'none: no Poisson rate held the SLO (measured)';
    return g.lambda_max_bracketed
        ? `measured, bracketed by a breach at ${g.breach_rate_rps} requests/s`
        : 'lower bound: no breach was measured above it';
}
/** Not evaluated: no goodput artifact (never a pass). */
const suppressedOpenLoop = (model) => ({
    name: 'open_loop_headroom',
    verdict: 'suppressed',
    detail: 'no goodput artifact: the throughput the policy holds each instance at is not checked against random (Poisson) arrivals',
    fix: `measure lambda_max: ${remeasure('goodput', model)}, then plan with \`--goodput <goodput artifact>\``,
});
function openLoopHeadroom(f) {
    const g = f.goodput;
    if (g === null || g.lambda_max_rps === null)
        return suppressedOpenLoop(f.model);
    if (g.lambda_max_rps === 0 && !g.lambda_max_bracketed) {
        return {
            name: 'open_loop_headroom',
            verdict: 'suppressed',
            detail: `${f.goodputFile ?? 'the goodput artifact'} decided no rate (every rung undecided): lambda_max is unknown, so the target is not checked against random arrivals`,
            fix: `re-measure with longer rungs: ${remeasure('goodput', f.model, ' --hold-s <more>')}`,
        };
    }
    const lambda = g.lambda_max_rps;
    const source = `lambda_max ${fmt(lambda)} requests/s (${lambdaMaxProvenance(g)}, p95 TTFAB from the intended send time, ${f.goodputFile ?? 'goodput artifact'})`;
    const target = f.sizedRateLabel ??
        `X_target ${fmt(f.xTargetRps)} requests/s (measured closed-loop throughput at C_scale_max ${fmt(f.scaleOutConcurrency, 1)})`;
    if (lambda <= 0) {
        return {
            name: 'open_loop_headroom',
            verdict: 'warn',
            detail: `at the target, random arrivals break the SLO: no Poisson arrival rate held the SLO on one instance (${target})`,
            fix: `re-measure with lower rates (${remeasure('goodput', f.model, ' --start-rate <lower>')}), or a faster instance type or a looser SLO`,
        };
    }
    if (f.xTargetRps <= lambda) {
        return {
            name: 'open_loop_headroom',
            verdict: 'ok',
            detail: `${target} is ${pct(1 - f.xTargetRps / lambda)} below ${source}: random arrivals at the target stay inside the SLO`,
            fix: null,
        };
    }
    const over = f.xTargetRps / lambda - 1;
    const concurrency = concurrencyForThroughput(f.curve, lambda);
    const instances = f.peakRps !== null
        ? `${Math.ceil(f.peakRps / lambda)} instances at peak instead of ${f.peakInstances}`
        : null;
    const lowerBound = !g.lambda_max_bracketed
        ? ' (lambda_max is only a lower bound: the true headroom may be larger; measure higher rates to bracket it)'
        : g.search.resolution_met === false
            ? ` (the search did not reach its resolution${g.search.undecided_rates.length > 0 ? `, undecided at ${g.search.undecided_rates.join(', ')} requests/s` : ''}: the true lambda_max may lie anywhere below the breach at ${g.breach_rate_rps} requests/s; longer rungs (--hold-s) narrow it)`
            : '';
    const concurrencyFix = concurrency === null
        ? `no concurrency target can express it: even at the lowest measured concurrency this server runs above lambda_max`
        : `a concurrency target of ${fmt(concurrency)} in flight (where the measured throughput curve reaches lambda_max${f.cwRatio !== null ? `; ${fmt(concurrency * f.cwRatio)} in CloudWatch ConcurrentRequestsPerModel units` : ''}) leaves the measured headroom, instead of C_scale_max ${fmt(f.scaleOutConcurrency, 1)}`;
    return {
        name: 'open_loop_headroom',
        verdict: 'warn',
        detail: `at the target, random arrivals break the SLO: ${target} exceeds ${source} by ${pct(over)}${lowerBound}`,
        fix: `hold each instance at or below lambda_max: ${concurrencyFix}${instances ? `; sized by throughput that is ${instances}` : ''}`,
    };
}

;// CONCATENATED MODULE: ./src/stats/student-t.ts
/**
 * Student's t distribution: CDF from the regularized incomplete beta function (continued fraction,
 * modified Lentz) and its quantile by bisection. Pure, deterministic, accurate to ~1e-10.
 */
/** ln Gamma(x) for x > 0 (Lanczos, g = 7, 9 terms: ~15 significant digits). */
function logGamma(x) {
    const c = [
        0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
        12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
    ];
    if (x < 0.5)
        return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
    const z = x - 1;
    let a = c[0];
    const t = z + 7.5;
    for (let i = 1; i < 9; i++)
        a += c[i] / (z + i);
    return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}
function betaContinuedFraction(a, b, x) {
    const tiny = 1e-300;
    let c = 1;
    let d = 1 - ((a + b) * x) / (a + 1);
    if (Math.abs(d) < tiny)
        d = tiny;
    d = 1 / d;
    let h = d;
    for (let m = 1; m <= 500; m++) {
        const m2 = 2 * m;
        let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
        d = 1 + aa * d;
        if (Math.abs(d) < tiny)
            d = tiny;
        c = 1 + aa / c;
        if (Math.abs(c) < tiny)
            c = tiny;
        d = 1 / d;
        h *= d * c;
        aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d;
        if (Math.abs(d) < tiny)
            d = tiny;
        c = 1 + aa / c;
        if (Math.abs(c) < tiny)
            c = tiny;
        d = 1 / d;
        const delta = d * c;
        h *= delta;
        if (Math.abs(delta - 1) < 1e-15)
            break;
    }
    return h;
}
/** Regularized incomplete beta I_x(a, b). */
function incompleteBeta(x, a, b) {
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
    return x < (a + 1) / (a + b + 2)
        ? (front * betaContinuedFraction(a, b, x)) / a
        : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}
/** P(T <= t) for Student's t with `df` degrees of freedom. */
function studentTCdf(t, df) {
    const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
    return t >= 0 ? 1 - tail : tail;
}
const quantileCache = new Map();
/** The p-quantile of Student's t with `df` degrees of freedom (0 < p < 1, df >= 1). */
function studentTQuantile(p, df) {
    if (!(p > 0 && p < 1) || !(df >= 1))
        throw new Error(`t quantile: p ${p}, df ${df} out of range`);
    const key = `${p}:${df}`;
    const cached = quantileCache.get(key);
    if (cached !== undefined)
        return cached;
    if (p < 0.5)
        return -studentTQuantile(1 - p, df);
    let lo = 0;
    let hi = 1;
    while (studentTCdf(hi, df) < p)
        hi *= 2;
    for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        const mid = (lo + hi) / 2;
        if (studentTCdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    const q = (lo + hi) / 2;
    quantileCache.set(key, q);
    return q;
}
/** P(Z > z) for a standard normal Z (erfc by its Chebyshev fit: relative error < 1.2e-7). */
function normalUpperTail(z) {
    const x = Math.abs(z) / Math.SQRT2;
    const t = 1 / (1 + 0.5 * x);
    const erfc = t *
        Math.exp(-x * x -
            1.26551223 +
            t *
                (1.00002368 +
                    t *
                        (0.37409196 +
                            t *
                                (0.09678418 +
                                    t *
                                        (-0.18628806 +
                                            t *
                                                (0.27886807 +
                                                    t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
    return z >= 0 ? erfc / 2 : 1 - erfc / 2;
}
/** The z with P(Z > z) = p (0 < p < 1), by bisection on normalUpperTail. */
function normalUpperQuantile(p) {
    if (!(p > 0 && p < 1))
        throw new Error(`normal quantile: p ${p} out of range`);
    let lo = -40;
    let hi = 40;
    for (let i = 0; i < 200 && hi - lo > 1e-12; i++) {
        const mid = (lo + hi) / 2;
        if (normalUpperTail(mid) > p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

;// CONCATENATED MODULE: ./src/stats/prediction-bound.ts
/**
 * An upper prediction bound for the next observation of a positive duration (T_total, a policy
 * lag) from n repeated observations. Pure.
 *
 * - n = 1: no bound (a single observation says nothing of the spread).
 * - 2 <= n < ORDER_STATISTIC_MIN_N: log-normal, t-based: with y = ln x, mean m and standard
 *   deviation s of the n logs, the bound is exp(m + t(n - 1, level) s sqrt(1 + 1/n)). Exact
 *   coverage `level` when the logs are normal and the observations independent.
 * - n >= ORDER_STATISTIC_MIN_N: distribution-free: the k-th smallest observation with
 *   k = ceil(level (n + 1)) covers the next observation with probability k / (n + 1) >= level for
 *   any continuous distribution (independent, identically distributed observations).
 */

/** The level every prediction bound is stated at. */
const PREDICTION_LEVEL = 0.9;
/** From this many observations on, the order statistic (no distribution assumed) is used. */
const ORDER_STATISTIC_MIN_N = 19;
/** The upper `level` prediction bound for the next of `values` (all > 0). */
function prediction_bound_upperPredictionBound(values, level = PREDICTION_LEVEL) {
    const n = values.length;
    const pct = `${Number((level * 100).toFixed(2))} %`;
    if (n === 0 || values.some((v) => !(v > 0) || !Number.isFinite(v))) {
        throw new RangeError('upperPredictionBound needs at least one positive, finite observation');
    }
    if (n === 1) {
        return {
            n,
            level,
            upper: null,
            method: null,
            description: 'not available: single observation (repeat the measurement for a prediction bound)',
        };
    }
    if (n >= ORDER_STATISTIC_MIN_N) {
        const k = Math.ceil(level * (n + 1));
        const sorted = [...values].sort((a, b) => a - b);
        return {
            n,
            level,
            upper: sorted[Math.min(n, k) - 1],
            method: 'order-statistic',
            description: `upper ${pct} prediction bound, distribution-free: observation ${k} of ${n} in ascending order (coverage ${k}/${n + 1})`,
        };
    }
    const logs = values.map((v) => Math.log(v));
    const mean = logs.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(logs.reduce((a, y) => a + (y - mean) ** 2, 0) / (n - 1));
    const t = studentTQuantile(level, n - 1);
    return {
        n,
        level,
        upper: Math.exp(mean + t * sd * Math.sqrt(1 + 1 / n)),
        method: 'log-normal-t',
        description: `upper ${pct} prediction bound, log-normal: exp(mean + t(${n - 1}, ${level}) sd sqrt(1 + 1/${n})) over the logs of ${n} observations`,
    };
}
/** `bound (upper 90 % prediction, n=3)`: how a plan labels a figure taken from a bound. */
const predictionBoundLabel = (b) => `bound (upper ${Number((b.level * 100).toFixed(2))} % prediction, n=${b.n})`;

;// CONCATENATED MODULE: ./src/analysis/ttotal-repeat.ts


/** One scale-out's record, as the single-scale-out artifact holds it. */
function observationOf(artifact, index) {
    return {
        index,
        measured_at: artifact.measured_at,
        t_total_s: artifact.t_total_s,
        t_total_end_stage: artifact.t_total_end_stage ?? null,
        instance_id: artifact.instance_id,
        from_instances: artifact.from_instances,
        to_instances: artifact.to_instances,
        p95_before_ms: artifact.p95_before_ms,
        p95_after_ms: artifact.p95_after_ms,
        requests_before: artifact.requests_before ?? null,
        requests_after: artifact.requests_after ?? null,
        timeline: artifact.timeline,
        durations: artifact.durations,
        dominant_stage: artifact.dominant_stage,
        missing_stages: artifact.missing_stages,
        notes: artifact.notes,
    };
}
/** The observations of an artifact: its own list, else (older artifacts) its one scale-out. */
const observationsOf = (artifact) => artifact.observations ?? [observationOf(artifact, 0)];
/** The prediction bound of T_total from the observations: none when any is only a lower bound. */
function tTotalPrediction(observations) {
    const lowerBound = observations.find((o) => o.t_total_end_stage === 'in_service');
    if (lowerBound) {
        const b = upperPredictionBound([lowerBound.t_total_s]);
        return {
            n: observations.length,
            level: b.level,
            upper_s: null,
            method: null,
            description: `not available: observation ${lowerBound.index + 1} of ${observations.length} is only a lower bound (traffic never recovered)`,
        };
    }
    const b = upperPredictionBound(observations.map((o) => o.t_total_s));
    return {
        n: b.n,
        level: b.level,
        upper_s: b.upper === null ? null : Math.round(b.upper * 1000) / 1000,
        method: b.method,
        description: b.description,
    };
}
/**
 * The artifact of n scale-outs (each given as its own single-scale-out artifact, in order): the
 * representative one's fields on top, every observation, and the prediction bound.
 */
function combineRepeats(runs) {
    if (runs.length === 0)
        throw new RangeError('combineRepeats needs at least one scale-out');
    const observations = runs.map((r, i) => observationOf(r, i));
    const lower = runs.findIndex((r) => isLowerBound(r));
    const byTotal = [...runs.keys()].sort((a, b) => runs[a].t_total_s - runs[b].t_total_s);
    const chosen = lower >= 0 ? lower : byTotal[Math.floor((runs.length - 1) / 2)];
    const top = runs[chosen];
    const prediction = tTotalPrediction(observations);
    const notes = [...top.notes];
    if (runs.length > 1) {
        notes.push(`${runs.length} scale-outs, each restored to ${top.from_instances} instance(s) before the next: T_total ${observations.map((o) => `${o.t_total_s} s`).join(', ')}; the timeline shown is observation ${chosen + 1} (${lower >= 0 ? 'the first that is only a lower bound' : 'the median'}); ${prediction.upper_s === null ? `prediction bound ${prediction.description}` : `upper ${Number((prediction.level * 100).toFixed(2))} % prediction bound for the next T_total ${prediction.upper_s} s (${prediction.description})`}`);
    }
    const last = runs[runs.length - 1];
    return {
        ...top,
        notes,
        // What was put back at the end of the run is the last restore's record.
        restore: last.restore,
        settings: top.settings ? { ...top.settings, repeat: runs.length } : top.settings,
        observations,
        t_total_prediction: prediction,
    };
}

;// CONCATENATED MODULE: ./src/stats/validated-holds.ts
/**
 * The holds the seeded coverage simulations validated the rung decisions at. A measurement run
 * with shorter holds (or settle periods) is outside what was proven: its verdicts may still be
 * right, but the plan and the goodput artifact say `validated_hold: false`. Pure.
 *
 * - Closed loop (test/stats/rung-decision-coverage.test.ts, bench/coverage.ts): a rung held up to
 *   120 s after a 10 s settle.
 * - Open loop (test/stats/open-loop-decision-coverage.test.ts, bench/coverage-openloop.ts): a 30 s
 *   settle, holds of 300-1200 s and the same grid at a quarter of them: 75 s is the shortest.
 */
const CLOSED_LOOP_VALIDATED = { holdS: 120, settleS: 10 };
const OPEN_LOOP_VALIDATED = { holdS: 75, settleS: 30 };
/** A rung's hold and settle against the validated ones; settle null: not recorded (legacy). */
function checkHold(kind, holdS, settleS) {
    const v = kind === 'closed-loop' ? CLOSED_LOOP_VALIDATED : OPEN_LOOP_VALIDATED;
    const short = [];
    if (holdS < v.holdS)
        short.push(`hold ${holdS} s < ${v.holdS} s`);
    if (settleS === null)
        short.push('settle not recorded');
    else if (settleS < v.settleS)
        short.push(`settle ${settleS} s < ${v.settleS} s`);
    return {
        validated: short.length === 0,
        detail: short.length === 0
            ? `${kind} hold ${holdS} s, settle ${settleS} s: at or above the validated ${v.holdS} s / ${v.settleS} s`
            : `${kind} ${short.join(', ')} (the coverage simulations validated hold ${v.holdS} s, settle ${v.settleS} s)`,
    };
}

;// CONCATENATED MODULE: ./src/plan/formulas.ts
/**
 * The arithmetic (docs/design.md, "The arithmetic"), one function per derived value.
 * Pure: numbers in, numbers out.
 */

/** T_plan = T_total + policy detection lag: how long a surge must be absorbed. */
const planningHorizonS = (tTotalS, policyLagS) => tTotalS + policyLagS;
function scaleBand(qMax, surgeRatio) {
    const h = surgeRatio - 1;
    return { h, scaleOutConcurrency: (1 - h) * qMax, scaleInConcurrency: (1 - 2 * h) * qMax };
}
/**
 * Smallest fleet that can scale in safely: removing one of N instances multiplies the
 * survivors' load by N/(N-1); that must stay within r = C_scale_max / C_scale_min, or the
 * scale-in itself triggers a scale-out. null when the band is degenerate (r <= 1).
 */
function smallestSafeMinimum(scaleOutConcurrency, scaleInConcurrency) {
    if (scaleInConcurrency <= 0)
        return null;
    const r = scaleOutConcurrency / scaleInConcurrency;
    if (r <= 1)
        return null;
    // Rounded to 9 digits so that 1.5 / 0.5 stays exactly 3, not 3.0000000000000004.
    return Math.max(2, Math.ceil(Number((r / (r - 1)).toFixed(9))));
}
/** W_max = max(0, SLO - S_p95): the queueing wait a request can afford. */
const waitBudgetS = (sloMs, serviceP95S) => Math.max(0, sloMs / 1000 - serviceP95S);
const scaleOutCooldownS = (tPlanS) => Math.floor(Math.max(10, Math.min(30, tPlanS / 2)));
const scaleInCooldownS = (tPlanS) => Math.floor(Math.max(300, 3 * tPlanS));
/** The usable rung nearest C_scale_max that carries a ratio; ties go to the higher rung. */
function ratioNearest(points, concurrency) {
    let best = null;
    for (const point of points) {
        if (best === null) {
            best = point;
            continue;
        }
        const distance = Math.abs(point.concurrency - concurrency);
        const bestDistance = Math.abs(best.concurrency - concurrency);
        if (distance < bestDistance || (distance === bestDistance && point.concurrency > best.concurrency))
            best = point;
    }
    return best;
}
/** Instances needed to serve `load` at the scaling target: by throughput (rps) or by streams. */
function instancesFor(load, xTargetRps, scaleOutConcurrency) {
    if (load.value <= 0)
        return 0;
    const perInstance = load.unit === 'rps' ? xTargetRps : scaleOutConcurrency;
    if (perInstance <= 0)
        return Number.POSITIVE_INFINITY;
    return Math.ceil(Number((load.value / perInstance).toFixed(9)));
}
/**
 * The naive estimate `rps * S_mean / C_scale_max` treats concurrency as throughput: it is the
 * fleet of servers with unlimited parallelism. Printed only to explain the fleet_sizing finding.
 */
const naiveInstances = (peakRps, serviceMeanS, scaleOutConcurrency) => Math.ceil((peakRps * serviceMeanS) / scaleOutConcurrency);
const throughputAtTarget = (curve, scaleOutConcurrency) => throughputAt(curve, scaleOutConcurrency);
/** Rounds for presentation and artifacts: values that deploy must not carry float noise. */
const round = (value, digits) => Number(value.toFixed(digits));

;// CONCATENATED MODULE: ./src/plan/uncertainty.ts
/**
 * What the plan knows of its inputs' uncertainty, and carries into its figures. Pure.
 *
 * - T_total: the upper 90 % prediction bound for the next scale-out when ttotal was repeated
 *   (`--repeat n`, n >= 2), else the single observation, labelled so.
 * - Policy lag from a drill: the upper 90 % prediction bound over its scale-outs when it observed
 *   several, else the one it observed, labelled so.
 * - Q_max: decided by a valid interval (batch sectioning) or only a point estimate (a legacy rung).
 * - The surge overflow probability with a sensitivity band: recomputed with the throughput at its
 *   lower bound, Q_max minus its resolution, T_plan at its upper bound, each and all together.
 */






/** The level of the T_plan upper bound the sensitivity band uses (stricter than the plan's 90 %). */
const SENSITIVITY_T_LEVEL = 0.99;
/** One-sided normal quantile of the throughput's lower bound (95 %). */
const THROUGHPUT_Z = 1.645;
/** T_total as the plan takes it from a ttotal artifact (not a lower-bound one: that stays as it is). */
function plannedTtotal(ttotal) {
    const observations = observationsOf(ttotal).map((o) => o.t_total_s);
    const upper = ttotal.t_total_prediction?.upper_s ?? null;
    const strict = observations.length >= 2 ? prediction_bound_upperPredictionBound(observations, SENSITIVITY_T_LEVEL).upper : null;
    if (upper !== null && observations.length >= 2) {
        return {
            seconds: upper,
            origin: 'bound',
            provenance: predictionBoundLabel({
                level: ttotal.t_total_prediction?.level ?? PREDICTION_LEVEL,
                n: observations.length,
            }),
            observations,
            upper99S: strict === null ? null : round(strict, 3),
        };
    }
    return {
        seconds: ttotal.t_total_s,
        origin: 'measured',
        provenance: observations.length === 1
            ? 'measured, single observation'
            : `measured (${ttotal.t_total_prediction?.description ?? 'no prediction bound'})`,
        observations,
        upper99S: strict === null ? null : round(strict, 3),
    };
}
/**
 * The drill's policy lag as the plan takes it: over its scale-outs from a busy endpoint (`full`
 * evaluation; else every one that has a lag), the upper 90 % prediction bound when there are
 * several, else the one (the drill's own figure).
 */
function plannedDrillLag(drill) {
    const single = drill.analysis.policy_lag.seconds;
    if (single === null)
        return null;
    const withLag = drill.analysis.scale_outs.filter((c) => c.policy_lag_s !== null);
    const full = withLag.filter((c) => c.evaluation === 'full');
    const pool = (full.length > 0 ? full : withLag).map((c) => c.policy_lag_s);
    if (pool.length >= 2) {
        // A lag of 0 s (the desired count seen at the first poll) has no logarithm: 1 ms stands in.
        const b = prediction_bound_upperPredictionBound(pool.map((v) => Math.max(v, 0.001)));
        if (b.upper !== null) {
            return {
                seconds: round(b.upper, 3),
                provenance: `${predictionBoundLabel(b)} over the drill's ${pool.length} scale-outs`,
                observations: pool,
            };
        }
    }
    return {
        seconds: single,
        provenance: 'measured by a drill, single scale-out event: no prediction bound',
        observations: pool.length > 0 ? pool : [single],
    };
}
/** The rung Q_max stands on was judged by a valid interval (batch sectioning), not a point estimate. */
function qmaxIntervalDecided(qmax) {
    return qmax.steps.some((s) => s.concurrency === qmax.q_max &&
        s.usable &&
        s.verdict === 'pass' &&
        typeof s.decision_method === 'string' &&
        s.ttfab_p95_ci_ms !== null);
}
/** Q_max's provenance, as every output labels it. */
function qmaxProvenance(qmax) {
    if (qmax.q_max === 0)
        return 'measured: concurrency 1 missed the SLO';
    const bracket = qmax.q_max_bracketed ? 'bracketed' : 'lower bound: not bracketed';
    return qmaxIntervalDecided(qmax)
        ? `measured, ${bracket}`
        : `POINT ESTIMATE (legacy rung: its p95 was compared with the SLO without a valid interval), ${bracket}`;
}
/** The finding: the rung at Q_max was decided by a valid interval, or Q_max is only a point estimate. */
function qmaxDecisionFinding(qmax, model) {
    if (qmax.q_max === 0) {
        return {
            name: 'qmax_decision',
            verdict: 'ok',
            detail: 'Q_max 0: no rung passed, nothing to decide',
            fix: null,
        };
    }
    if (qmaxIntervalDecided(qmax)) {
        const step = qmax.steps.find((s) => s.concurrency === qmax.q_max && s.verdict === 'pass');
        return {
            name: 'qmax_decision',
            verdict: 'ok',
            detail: `the rung at Q_max ${qmax.q_max} passed on its interval (${step?.decision_method}${step?.ci_level ? `, ${Number((step.ci_level * 100).toFixed(2))} %` : ''}): the whole interval lay within the SLO`,
            fix: null,
        };
    }
    return {
        name: 'qmax_decision',
        verdict: 'warn',
        detail: `qmax_not_interval_decided: the rung at Q_max ${qmax.q_max} passed on its point estimate of p95 (a legacy rung: no valid interval for closed-loop data), so Q_max is a point estimate, not decided; a true p95 at the SLO passes such a rung about half the time`,
        fix: `re-measure with ${remeasure('qmax', model)} (each rung is decided by a batch-sectioning interval)`,
    };
}
/** The throughput curve at its lower bound: each rung's rate x (1 - 1.645 / sqrt(completions)). */
function throughputLowerCurve(qmax) {
    const byConcurrency = new Map();
    for (const step of qmax.steps) {
        if (!step.usable)
            continue;
        const factor = step.completed > 0 ? Math.max(0, 1 - THROUGHPUT_Z / Math.sqrt(step.completed)) : 0;
        byConcurrency.set(step.concurrency, [
            ...(byConcurrency.get(step.concurrency) ?? []),
            step.achieved_rps * factor,
        ]);
    }
    return [...byConcurrency.entries()]
        .map(([concurrency, v]) => ({ concurrency, rps: v.reduce((a, b) => a + b, 0) / v.length }))
        .sort((a, b) => a.concurrency - b.concurrency);
}
/** Q_max's resolution: the search's, else the gap to the measured breach, else one. */
function qmaxResolution(qmax) {
    const r = qmax.search?.resolution ??
        (qmax.q_max_upper_bound != null ? qmax.q_max_upper_bound - qmax.q_max : null) ??
        1;
    return Math.max(1, r);
}
/** One surge computation: from the stationary state at the rate, a k surge, within T. */
function surgeAt(curve, queueLimit, k, rate, horizonS) {
    const limit = Math.max(1, Math.floor(queueLimit));
    const r = overflowProbability({
        curve,
        queueLimit: limit,
        arrivalRate: k * rate,
        start: stationaryDistribution(curve, limit, rate),
        horizonS,
    });
    // The upper bound: never optimistic when the work budget ran out (equal to it when exact).
    return { probability: r.upperBound, exact: r.exact };
}
/** The surge overflow probability at the deployed rate, and how far it moves with each input. */
function surgeSensitivity(input) {
    const { qmax, surgeRatio: k, rateRps: rate } = input;
    const lowCurve = throughputLowerCurve(qmax);
    const resolution = qmaxResolution(qmax);
    const lowQ = Math.max(1, qmax.q_max - resolution);
    const nominal = surgeAt(input.curve, qmax.q_max, k, rate, input.tPlanS);
    const tHigh = input.tPlanUpperS;
    const item = (vary, curve, q, t, used) => {
        const r = surgeAt(curve, q, k, rate, t);
        return { vary, probability: round(r.probability, 4), exact: r.exact, used };
    };
    const items = [
        item('throughput_low', lowCurve, qmax.q_max, input.tPlanS, `each rung's throughput x (1 - 1.645 / sqrt(completions)) (one-sided 95 % Poisson bound, assumed)`),
        item('q_max_low', input.curve, lowQ, input.tPlanS, `Q_max ${qmax.q_max} - resolution ${resolution} = ${lowQ}`),
        tHigh === null
            ? { vary: 't_plan_high', probability: null, exact: true, used: input.tPlanUpperNote }
            : item('t_plan_high', input.curve, qmax.q_max, tHigh, `T_plan ${round(tHigh, 1)} s (${input.tPlanUpperNote})`),
        item('all', lowCurve, lowQ, tHigh ?? input.tPlanS, tHigh === null
            ? 'throughput and Q_max at their bounds together (T_plan as planned: no upper bound)'
            : 'throughput, Q_max and T_plan at their bounds together'),
    ];
    const all = items[items.length - 1]?.probability ?? nominal.probability;
    return {
        rate_rps: round(rate, 6),
        nominal: round(nominal.probability, 4),
        low: round(nominal.probability, 4),
        high: Math.max(round(nominal.probability, 4), ...items.map((i) => i.probability ?? 0), all),
        method: 'uniformization (upper bound when the work budget ran out)',
        items,
    };
}
/** The ladders' holds against the validated ones: qmax's (closed loop) and goodput's (open loop). */
function validatedHolds(qmax, goodput) {
    const checks = [
        checkHold('closed-loop', qmax.ladder.hold_s, qmax.ladder.settle_s),
        ...(goodput ? [checkHold('open-loop', goodput.ladder.hold_s, goodput.ladder.settle_s)] : []),
    ];
    return {
        validated: checks.every((c) => c.validated),
        detail: checks.map((c) => c.detail).join('; '),
    };
}

;// CONCATENATED MODULE: ./src/plan/vantage-finding.ts
/**
 * The `measurement_vantage` finding: where the ladder's load came from against where the endpoint
 * is. Every TTFAB measured from a machine outside the endpoint's region carries the network leg
 * between them (for a GitHub-hosted runner, the internet); the RTT floor measured at the start of
 * the run says how much of first audio that leg is at least. Old artifacts without a vantage: not
 * evaluated (suppressed), never a pass.
 */


const NAME = 'measurement_vantage';
function floorText(qmax, ttfabC1Ms) {
    const rtt = qmax.vantage?.rtt_floor;
    if (!rtt)
        return 'RTT floor not measured';
    if (rtt.tcp_ms === null)
        return `RTT floor not measured (${rtt.error ?? 'no handshake completed'})`;
    const share = ttfabC1Ms !== null && ttfabC1Ms > 0
        ? ` = ${((rtt.tcp_ms / ttfabC1Ms) * 100).toFixed(1)} % of TTFAB p95 at concurrency 1 (${ttfabC1Ms.toFixed(1)} ms)`
        : '';
    return `RTT floor ${rtt.tcp_ms.toFixed(1)} ms (measured, to ${rtt.target})${share}`;
}
function measurementVantage(model, qmax, ttfabC1Ms) {
    const v = qmax.vantage;
    if (!v) {
        return {
            name: NAME,
            verdict: 'suppressed',
            detail: 'vantage not recorded (the qmax was measured before scalegate recorded where the load came from)',
            fix: `re-measure to record it: ${remeasure('qmax', model)}`,
        };
    }
    const endpointRegion = qmax.fingerprint.region;
    const from = `load from a ${v.runner} machine (${v.host})`;
    const floor = floorText(qmax, ttfabC1Ms);
    if (endpointRegion === null && isSageMakerTransport(qmax.transport)) {
        return {
            name: NAME,
            verdict: 'suppressed',
            detail: `${from}; the endpoint's region is not recorded, so the two cannot be compared; ${floor}`,
            fix: `re-measure (current measurements record their region): ${remeasure('qmax', model)}`,
        };
    }
    if (!isSageMakerTransport(qmax.transport) || endpointRegion === fingerprint_LOCAL_REGION) {
        const what = isSageMakerTransport(qmax.transport)
            ? 'the local SageMaker'
            : 'a container measured directly';
        return { name: NAME, verdict: 'ok', detail: `${from} to ${what}; ${floor}`, fix: null };
    }
    const fix = `calibrate from a runner in ${endpointRegion} (self-hosted or AWS CodeBuild-hosted: the calibrate workflow's runs-on input, docs/vantage.md), or declare the runner's region with SCALEGATE_VANTAGE_REGION if it is in ${endpointRegion}`;
    if (v.region === null) {
        return {
            name: NAME,
            verdict: 'warn',
            detail: `${from}, region unknown, for an endpoint in ${endpointRegion}: every TTFAB includes the network leg to ${endpointRegion}; ${floor}`,
            fix,
        };
    }
    if (v.region !== endpointRegion) {
        return {
            name: NAME,
            verdict: 'warn',
            detail: `${from} in ${v.region} (${v.region_source}), the endpoint is in ${endpointRegion}: every TTFAB includes the leg between the regions; ${floor}`,
            fix,
        };
    }
    return {
        name: NAME,
        verdict: 'ok',
        detail: `${from} in ${v.region} (${v.region_source}), the endpoint's region; ${floor}`,
        fix: null,
    };
}

;// CONCATENATED MODULE: ./src/plan/findings.ts
/**
 * The plan's findings, in their fixed order. Each is ok | warn | stop | suppressed
 * (suppressed = not evaluated, never a pass) with a one-line detail and a fix.
 */






const FINDING_NAMES = (/* unused pure expression or super */ null && ([
    'measurement_trust',
    'measurement_vantage',
    'qmax_decision',
    'curve_repeatability',
    'slo_budget',
    'invocation_ceiling',
    'queue_depth',
    'threshold_units',
    'surge_survival',
    'scale_in_safety',
    'fleet_sizing',
    'fleet_cost',
    'provision_stage',
    'quota_headroom',
    'open_loop_headroom',
]));

/** Repeated ladders whose Q_max spread exceeds this fraction are not repeatable. */
const REPEATABILITY_SPREAD = 0.2;
/** The naive fleet estimate differing from ours by more than this factor is called out. */
const NAIVE_FLEET_FACTOR = 2;
const findings_fmt = (value, digits = 1) => value.toFixed(digits);
const findings_pct = (value) => `${(value * 100).toFixed(1)} %`;
function measurementTrust(f) {
    // A container measured directly (http) has no endpoint: its instance count is never observed
    // (older artifacts recorded a constant 1 for it).
    const direct = !isSageMakerTransport(f.qmax.transport);
    const counts = direct ? [] : [...new Set(f.qmax.instance_counts_observed)];
    if (counts.length > 1 || (counts.length === 1 && counts[0] !== 1)) {
        return {
            name: 'measurement_trust',
            verdict: 'stop',
            detail: `instance counts seen during the ladder: ${counts.join(', ')}; Q_max must be measured on exactly one instance`,
            fix: `re-measure with ${remeasure('qmax', f.model)} (it freezes scaling and pins one instance)`,
        };
    }
    const doubts = [];
    if (direct) {
        doubts.push('a container measured directly over http: instance count not observed, no endpoint scaling to freeze');
    }
    else {
        if (counts.length === 0)
            doubts.push('instance count not observed (every capacity check failed)');
        if (!f.qmax.frozen)
            doubts.push('scaling was not frozen');
    }
    if (!f.qmax.unbounded_queue)
        doubts.push('the container queue was bounded, so rejections may have capped latency');
    const basis = f.qmax.service_time_basis;
    if (basis?.fallback) {
        doubts.push(`S_mean/S_p95 come from concurrency ${basis.concurrency}, not an uncontended rung at 1 (${basis.reason})` +
            (basis.usable ? ': they may include queueing' : ', and that rung is unusable'));
    }
    if (doubts.length > 0) {
        return {
            name: 'measurement_trust',
            verdict: 'warn',
            detail: doubts.join('; '),
            fix: `re-measure with ${remeasure('qmax', f.model)} against a frozen, single-instance endpoint with an unbounded queue${basis?.fallback ? ', with a ladder whose concurrency-1 rung is usable' : ''}`,
        };
    }
    return {
        name: 'measurement_trust',
        verdict: 'ok',
        detail: 'frozen at one instance, one instance count seen, queue unbounded during the ladder',
        fix: null,
    };
}
function curveRepeatability(f) {
    const runs = f.qmax.q_max_per_run;
    if (runs.length < 2) {
        return {
            name: 'curve_repeatability',
            verdict: 'suppressed',
            detail: `${runs.length} ladder run: repeatability not evaluated`,
            fix: `measure twice: ${remeasure('qmax', f.model, ' --runs 2')}`,
        };
    }
    const high = Math.max(...runs);
    const low = Math.min(...runs);
    const spread = high > 0 ? (high - low) / high : 0;
    return spread <= REPEATABILITY_SPREAD
        ? {
            name: 'curve_repeatability',
            verdict: 'ok',
            detail: `Q_max per run ${runs.join(', ')}: spread ${findings_pct(spread)} <= ${findings_pct(REPEATABILITY_SPREAD)}`,
            fix: null,
        }
        : {
            name: 'curve_repeatability',
            verdict: 'warn',
            detail: `Q_max per run ${runs.join(', ')}: spread ${findings_pct(spread)} > ${findings_pct(REPEATABILITY_SPREAD)}`,
            fix: 'find the source of variance (noisy neighbour, prompt mix, warm-up) and re-measure with more runs',
        };
}
function sloBudget(f) {
    const slo = f.sloMs / 1000;
    const detail = `SLO ${findings_fmt(slo, 3)} s, S_p95 ${findings_fmt(f.serviceP95S, 3)} s, W_max ${findings_fmt(f.waitBudgetS, 3)} s`;
    if (f.serviceP95S >= slo) {
        return {
            name: 'slo_budget',
            verdict: 'stop',
            detail: `${detail}: one uncontended request already misses the SLO`,
            fix: 'a faster instance type or model, or an SLO above the service time',
        };
    }
    if (f.waitBudgetS < f.serviceP95S) {
        return {
            name: 'slo_budget',
            verdict: 'warn',
            detail: `${detail}: less than one service time of queueing fits in the SLO`,
            fix: 'expect Q_max near 1; consider a faster instance type or a looser SLO',
        };
    }
    return { name: 'slo_budget', verdict: 'ok', detail, fix: null };
}
function invocationCeiling(f) {
    const worst = f.waitBudgetS + f.serviceP95S;
    return worst > f.invocationCeilingS
        ? {
            name: 'invocation_ceiling',
            verdict: 'stop',
            detail: `W_max + S_p95 = ${findings_fmt(worst, 3)} s exceeds the ${f.invocationCeilingS} s invocation ceiling`,
            fix: 'lower the SLO below the invocation ceiling',
        }
        : {
            name: 'invocation_ceiling',
            verdict: 'ok',
            detail: `W_max + S_p95 = ${findings_fmt(worst, 3)} s <= ${f.invocationCeilingS} s`,
            fix: null,
        };
}
function queueDepth(f) {
    if (f.qmax.q_max === 0) {
        return {
            name: 'queue_depth',
            verdict: 'stop',
            detail: 'no concurrency held the SLO, not even 1',
            fix: 'a faster instance type or model, or a looser SLO',
        };
    }
    if (!f.qmax.q_max_bracketed) {
        return {
            name: 'queue_depth',
            verdict: 'warn',
            detail: `Q_max ${f.qmax.q_max} is only a lower bound: no higher rung was measured above the SLO`,
            fix: `extend the ladder: ${remeasure('qmax', f.model, ` --max-concurrency ${f.qmax.q_max * 2}`)}`,
        };
    }
    const search = f.qmax.search;
    if (search && search.resolution_met === false) {
        const undecided = search.undecided_rungs.length > 0 ? `; undecided in between: ${search.undecided_rungs.join(', ')}` : '';
        return {
            name: 'queue_depth',
            verdict: 'warn',
            detail: `the search did not reach its resolution: Q_max ${f.qmax.q_max}, lowest measured breach ${search.upper_bound}, requested resolution ${search.resolution}${undecided}; Q_max may be up to ${(search.upper_bound ?? f.qmax.q_max + 1) - 1}`,
            fix: `re-measure with longer rungs so the undecided ones decide: ${remeasure('qmax', f.model, ' --hold-s <more>')}`,
        };
    }
    return {
        name: 'queue_depth',
        verdict: 'ok',
        detail: `queue_max_depth ${f.qmax.q_max} = Q_max, bracketed by a measured breach at ${f.qmax.q_max_upper_bound ?? 'a higher rung'}${search?.resolution ? ` (resolution ${search.resolution} met)` : ''}`,
        fix: null,
    };
}
function thresholdUnits(f) {
    const chosen = f.policy?.rule === 'surge-safe' ? f.policy.chosen : null;
    if (chosen) {
        const t = chosen.target;
        return {
            name: 'threshold_units',
            verdict: 'ok',
            detail: `the target ${chosen.target_value} is in ${chosen.metric} (${chosen.statistic} per ${chosen.period_s} s) units at lambda_safe ${findings_fmt(chosen.lambda_safe_rps, 2)} requests/s under random arrivals (${t.origin}: ${t.method}; per-period spread p10 ${t.p10}, p90 ${t.p90}), not in closed-loop concurrency`,
            fix: null,
        };
    }
    if (f.cwRatio === null) {
        return {
            name: 'threshold_units',
            verdict: 'suppressed',
            detail: 'no CloudWatch/client concurrency ratio R was measured: there is no deployable threshold',
            fix: `re-measure over the response-stream transport with CloudWatch: ${remeasure('qmax', f.model)}`,
        };
    }
    return {
        name: 'threshold_units',
        verdict: 'ok',
        detail: `R = ${findings_fmt(f.cwRatio, 3)} at concurrency ${f.cwRatioRung}: thresholds are in CloudWatch ConcurrentRequestsPerModel (Maximum) units`,
        fix: null,
    };
}
/** The deployed surge-safe candidate: ok when it holds, stop (with the values that would) when not. */
function surgeSafeSurvival(f, policy, chosen) {
    const p = policy.maxOverflowProbability;
    const lower = f.tTotalLowerBound ? 'at least ' : '';
    const within = `within T_plan ${findings_fmt(chosen.t_plan_s)} s${f.tTotalLowerBound ? ' (from a LOWER-BOUND T_total: the real T_plan is longer)' : ''}`;
    const bound = chosen.lambda_safe_bound === 'lambda_max'
        ? ", capped at goodput's lambda_max"
        : chosen.lambda_safe_bound === 'slo'
            ? ', where p95 TTFAB after the surge reaches the SLO'
            : '';
    const seed = policy.seed;
    const seedText = seed
        ? `; the closed-loop rule (seed) would hold each instance at ${findings_pct(seed.throughput_share)} of its throughput and overflow with probability ${findings_pct(seed.baseline_overflow_probability)} with no surge, ${findings_pct(seed.surge_overflow_probability)} with it`
        : '';
    const p95 = chosen.surge_p95_ttfab_ms === null
        ? 'p95 TTFAB at the end of T_plan not within the measured ladder'
        : `p95 TTFAB at the end of T_plan ${findings_fmt(chosen.surge_p95_ttfab_ms, 0)} ms (computed)`;
    const detail = `the policy holds each instance at lambda_safe ${findings_fmt(chosen.lambda_safe_rps, 2)} requests/s (${findings_pct(chosen.throughput_share)} of its measured throughput${bound}): a ${f.surgeRatio}x surge overflows Q_max ${f.qmax.q_max} ${within} with probability ${lower}${findings_pct(chosen.surge_overflow_probability)}, ${lower}${findings_pct(chosen.baseline_overflow_probability)} with no surge (computed for the birth-death model of the instance; the method, uniformization, is numerically exact to 1e-9, the model and its inputs are not: see the sensitivity band; tolerance ${findings_pct(p)}); ${p95}${seedText}`;
    if (!chosen.holds) {
        return {
            name: 'surge_survival',
            verdict: 'stop',
            detail: `${detail}: no rate within this server's throughput survives`,
            fix: `shorten T_total (smaller image, pre-cached weights), raise Q_max (a faster instance type), or raise max_overflow_probability above ${findings_pct(p)} knowingly`,
        };
    }
    if (f.tTotalLowerBound) {
        return {
            name: 'surge_survival',
            verdict: 'warn',
            detail: `${detail}: survival over the real T_plan is not shown`,
            fix: `measure T_total to the end (traffic recovered): ${remeasure('ttotal', f.model, ' --qmax <qmax artifact>')}, then re-plan`,
        };
    }
    return { name: 'surge_survival', verdict: 'ok', detail, fix: null };
}
/** The values that would hold, for a fix: the surge-safe candidate's. */
const holdingValues = (policy) => {
    const c = policy?.chosen;
    if (!c?.holds)
        return '';
    return `deploy the surge-safe policy instead (plan without --policy-rule seed): ${c.metric} target ${c.target_value} and scale-in threshold ${c.scale_in_threshold} hold each instance at lambda_safe ${findings_fmt(c.lambda_safe_rps, 2)} requests/s (${findings_pct(c.throughput_share)} of its throughput), where the surge overflows within T_plan ${findings_fmt(c.t_plan_s)} s with probability ${findings_pct(c.surge_overflow_probability)} (computed), ${c.peak_instances} instances at peak`;
};
function surgeSurvival(f) {
    const policy = f.policy;
    if (policy?.rule === 'surge-safe' && policy.chosen)
        return surgeSafeSurvival(f, policy, policy.chosen);
    const seedFinding = seedSurgeSurvival(f);
    // The seed's rule deployed: an overflow probability above the tolerance is a stop.
    if (policy?.seed &&
        !policy.seed.holds &&
        (seedFinding.verdict === 'warn' || seedFinding.verdict === 'ok')) {
        return {
            ...seedFinding,
            verdict: 'stop',
            detail: `${seedFinding.detail} (above the tolerated ${findings_pct(policy.maxOverflowProbability)}: the deployed closed-loop rule does not hold the SLO)`,
            fix: holdingValues(policy) || seedFinding.fix,
        };
    }
    return seedFinding;
}
function seedSurgeSurvival(f) {
    const a = f.surge;
    if (a === null) {
        return {
            name: 'surge_survival',
            verdict: 'suppressed',
            detail: 'no throughput curve to compute from',
            fix: null,
        };
    }
    // P(overflow within T) only grows with T: over a lower-bound T_plan it is a lower bound too.
    const prob = (r) => `${r.exact && !f.tTotalLowerBound ? '' : 'at least '}${findings_pct(r.probability)}`;
    const start = `${a.start} in flight (C_scale_max ${findings_fmt(f.scaleOutConcurrency)} rounded)`;
    const fluid = a.fluidOverflowS === null
        ? `the fluid queue from ${start} never reaches Q_max`
        : `the fluid queue fills from ${start} to Q_max ${f.qmax.q_max} in ${findings_fmt(a.fluidOverflowS)} s`;
    const how = a.exact
        ? 'first-passage probabilities of the birth-death model, by uniformization (numerically exact to 1e-9)'
        : 'bounds: the computation budget ran out';
    const within = `within T_plan ${findings_fmt(f.tPlanS)} s${f.tTotalLowerBound ? ' (from a LOWER-BOUND T_total: the real T_plan is longer)' : ''}`;
    if (a.cause === 'no-headroom') {
        const share = a.headroomUtilization ?? 0;
        const rps = share * a.capacityRps;
        const instances = a.peakRps !== null && rps > 0
            ? `, ${Math.ceil(a.peakRps / rps)} instances at peak instead of ${f.peakInstances}`
            : '';
        return {
            name: 'surge_survival',
            verdict: 'warn',
            detail: `at the target this server runs at ${findings_pct(a.utilization)} of its measured throughput (${findings_fmt(a.baseRate, 2)} of ${findings_fmt(a.capacityRps, 2)} requests/s): ` +
                `the queue overflows Q_max ${f.qmax.q_max} ${within} with probability ${prob(a.baseline)} with no surge (k = 1) and ${prob(a.surge)} with a ${f.surgeRatio}x surge (${how}); ` +
                `the overflow happens with or without a surge: the target leaves no throughput headroom; ${fluid}`,
            fix: share > 0
                ? `provision so each instance receives at most ${findings_pct(share)} of its measured throughput (${findings_fmt(rps, 2)} requests/s${instances}): ` +
                    `from that load even a ${f.surgeRatio}x surge overflows ${within} with probability <= ${findings_pct(f.policy?.maxOverflowProbability ?? SURGE_OVERFLOW_WARN)} (computed). ` +
                    `A concurrency target cannot express this here: at ${a.saturationConcurrency} in flight or more this server already runs at >= 99 % of its throughput. ` +
                    'Lowering the surge ratio changes nothing (it overflows without a surge)'
                : `no load within this server's measured throughput survives a ${f.surgeRatio}x surge ${within}: shorten T_total or raise Q_max (a faster instance type or model)`,
        };
    }
    const detail = `a ${f.surgeRatio}x surge overflows the Q_max queue ${within} with probability ${prob(a.surge)}; with no surge (k = 1): ${prob(a.baseline)} (${how}); ${fluid}`;
    if (a.cause === 'surge') {
        const survivable = a.survivableSurgeRatio ?? 1;
        return {
            name: 'surge_survival',
            verdict: 'warn',
            detail: `${detail}: the surge is the cause`,
            fix: survivable > 1
                ? `this plan survives surges up to ${(Math.floor(survivable * 100) / 100).toFixed(2)}x ${within}: shorten T_total (smaller image, pre-cached weights) or pre-scale before known peaks to promise ${f.surgeRatio}x, or promise at most that`
                : 'shorten T_total (smaller image, pre-cached weights) or pre-scale before known peaks: no surge above 1x fits within T_plan',
        };
    }
    if (f.tTotalLowerBound) {
        return {
            name: 'surge_survival',
            verdict: 'warn',
            detail: `${detail}: survival over the real T_plan is not shown`,
            fix: `measure T_total to the end (traffic recovered): ${remeasure('ttotal', f.model, ' --qmax <qmax artifact>')}, then re-plan`,
        };
    }
    return { name: 'surge_survival', verdict: 'ok', detail, fix: null };
}
function scaleInSafety(f) {
    if (f.minSafeInstances === null) {
        return {
            name: 'scale_in_safety',
            verdict: 'suppressed',
            detail: 'the scale band is degenerate (C_scale_min <= 0): no safe minimum exists',
            fix: 'lower the surge ratio below 1.5',
        };
    }
    return f.minInstances < f.minSafeInstances
        ? {
            name: 'scale_in_safety',
            verdict: 'warn',
            detail: `min_instances ${f.minInstances} < ${f.minSafeInstances}: below ${f.minSafeInstances} instances, removing one pushes the survivors past the scale-out threshold`,
            fix: `raise min_instances_floor to ${f.minSafeInstances}, or accept scale-in oscillation at trough load`,
        }
        : {
            name: 'scale_in_safety',
            verdict: 'ok',
            detail: `min_instances ${f.minInstances} >= smallest safe minimum ${f.minSafeInstances}`,
            fix: null,
        };
}
function fleetSizing(f) {
    if (f.naivePeakInstances === null) {
        return {
            name: 'fleet_sizing',
            verdict: 'ok',
            detail: `peak load stated in streams: ${f.peakInstances} instances at ${findings_fmt(f.scaleOutConcurrency)} streams each`,
            fix: null,
        };
    }
    const ours = Math.max(1, f.peakInstances);
    const naive = Math.max(1, f.naivePeakInstances);
    const factor = Math.max(ours / naive, naive / ours);
    const sized = f.sizedRateLabel ?? `measured throughput ${findings_fmt(f.xTargetRps ?? 0, 2)} rps/instance`;
    const detail = `${f.peakInstances} instances at peak from ${sized}; the naive rps x S_mean / C_scale_max gives ${f.naivePeakInstances} (${findings_fmt(factor)}x off)`;
    return factor > NAIVE_FLEET_FACTOR
        ? {
            name: 'fleet_sizing',
            verdict: 'warn',
            detail,
            fix: 'size the fleet from throughput (max_instances here), never from concurrency x service time: this server does not serve its in-flight requests in parallel',
        }
        : { name: 'fleet_sizing', verdict: 'ok', detail, fix: null };
}
function fleetCost(f) {
    if (f.instanceHourlyUsd === null) {
        return {
            name: 'fleet_cost',
            verdict: 'suppressed',
            detail: 'no instance price known',
            fix: 'set instance_hourly_usd for the model in scalegate.config.json',
        };
    }
    const price = f.instanceHourlyUsd;
    return {
        name: 'fleet_cost',
        verdict: 'ok',
        detail: `$${(f.minInstances * price).toFixed(2)}/h at min (${f.minInstances}), $${(f.maxInstances * price).toFixed(2)}/h at max (${f.maxInstances}) at $${price.toFixed(3)}/instance-hour`,
        fix: null,
    };
}
function provisionStage(f) {
    if (f.tTotalOrigin === 'stated') {
        return {
            name: 'provision_stage',
            verdict: 'warn',
            detail: `T_total ${findings_fmt(f.tTotalS)} s was stated, not measured`,
            fix: `measure it: ${remeasure('ttotal', f.model, ' --qmax <qmax artifact>')}`,
        };
    }
    const dominant = f.dominantStage
        ? `; dominant stage ${f.dominantStage.from} -> ${f.dominantStage.to} ${findings_fmt(f.dominantStage.seconds)} s`
        : '';
    if (f.tTotalLowerBound) {
        return {
            name: 'provision_stage',
            verdict: 'warn',
            detail: `T_total ${findings_fmt(f.tTotalS)} s is a LOWER BOUND: the instance came into service but the probe never recovered, so the clock stopped at in_service; T_plan, the cooldowns and the surge probability use it as if complete and can only be too low${dominant}`,
            fix: `re-measure where the new instance gets its own capacity: ${remeasure('ttotal', f.model, ' --qmax <qmax artifact>')} (a longer --max-wait-s if it was still recovering); until then the gate refuses this plan unless --allow-lower-bound`,
        };
    }
    return {
        name: 'provision_stage',
        verdict: 'ok',
        detail: `T_total ${findings_fmt(f.tTotalS)} s ${f.tTotalProvenance ? `(${f.tTotalProvenance})` : 'measured'}${dominant}`,
        fix: null,
    };
}
function quotaHeadroom(f) {
    if (f.instanceQuota === null) {
        return {
            name: 'quota_headroom',
            verdict: 'suppressed',
            detail: 'no endpoint-usage quota known for the instance type',
            fix: 'set instance_quota for the model in scalegate.config.json (Service Quotas: "<type> for endpoint usage")',
        };
    }
    return f.maxInstances > f.instanceQuota
        ? {
            name: 'quota_headroom',
            verdict: 'warn',
            detail: `max_instances ${f.maxInstances} exceeds the quota of ${f.instanceQuota}: scale-out will fail before peak`,
            fix: `request a quota increase to at least ${f.maxInstances}`,
        }
        : {
            name: 'quota_headroom',
            verdict: 'ok',
            detail: `max_instances ${f.maxInstances} <= quota ${f.instanceQuota}`,
            fix: null,
        };
}
function evaluateFindings(facts) {
    return [
        measurementTrust(facts),
        measurementVantage(facts.model, facts.qmax, facts.ttfabP95AtC1Ms ?? null),
        qmaxDecisionFinding(facts.qmax, facts.model),
        curveRepeatability(facts),
        sloBudget(facts),
        invocationCeiling(facts),
        queueDepth(facts),
        thresholdUnits(facts),
        surgeSurvival(facts),
        scaleInSafety(facts),
        fleetSizing(facts),
        fleetCost(facts),
        provisionStage(facts),
        quotaHeadroom(facts),
        facts.openLoop ?? suppressedOpenLoop(facts.model),
    ];
}
function planVerdict(findings) {
    const warnCount = findings.filter((f) => f.verdict === 'warn').length;
    if (findings.some((f) => f.verdict === 'stop'))
        return { verdict: 'stop', warnCount };
    return { verdict: warnCount > 0 ? 'warn' : 'ok', warnCount };
}

;// CONCATENATED MODULE: ./src/stats/prng.ts
/**
 * A small seeded generator (mulberry32): 32-bit integer arithmetic only, so the same seed gives
 * the same sequence on every machine and Node version, unlike Math.random.
 */
function prng_mulberry32(seed) {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

;// CONCATENATED MODULE: ./src/stats/quantiles.ts
/**
 * Quantiles, selection, and the order-statistic interval for independent samples. Pure functions.
 */
/** Sorted copy, ascending (a typed-array sort: numeric, and several times faster than a comparator). */
const quantiles_sortedAscending = (values) => Array.from(Float64Array.from(values).sort());
/**
 * The k-th smallest (0-based) of `values`, which it reorders in place (Hoare's selection with a
 * median-of-three pivot): O(n), for statistics computed on every tick of a rung.
 */
function selectInPlace(values, k) {
    let left = 0;
    let right = values.length - 1;
    while (right > left) {
        const mid = (left + right) >>> 1;
        const a = values[left];
        const b = values[mid];
        const c = values[right];
        const pivot = Math.max(Math.min(a, b), Math.min(Math.max(a, b), c)); // median of three
        let i = left;
        let j = right;
        while (i <= j) {
            while (values[i] < pivot)
                i++;
            while (values[j] > pivot)
                j--;
            if (i <= j) {
                const t = values[i];
                values[i] = values[j];
                values[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            right = j;
        else if (k >= i)
            left = i;
        else
            return values[k];
    }
    return values[k];
}
/**
 * Quantile by linear interpolation between order statistics (Hyndman & Fan type 7, the
 * numpy/R default, which the legacy artifacts used). `sorted` must be ascending.
 */
function quantileSorted(sorted, q) {
    if (sorted.length === 0)
        return null;
    if (q <= 0)
        return sorted[0];
    if (q >= 1)
        return sorted[sorted.length - 1];
    const position = (sorted.length - 1) * q;
    const below = Math.floor(position);
    const fraction = position - below;
    const low = sorted[below];
    const high = sorted[Math.min(below + 1, sorted.length - 1)];
    return low + (high - low) * fraction;
}
const quantile = (values, q) => quantileSorted(quantiles_sortedAscending(values), q);
const mean = (values) => values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length;
/** Binomial(n, p) cumulative probabilities P(B <= k) for k = 0..n, computed in log space. */
function binomialCdf(n, p) {
    const cdf = new Float64Array(n + 1);
    const logP = Math.log(p);
    const logQ = Math.log1p(-p);
    let logPmf = n * logQ;
    let total = 0;
    for (let k = 0; k <= n; k++) {
        total += Math.exp(logPmf);
        cdf[k] = Math.min(1, total);
        logPmf += Math.log((n - k) / (k + 1)) + logP - logQ;
    }
    return cdf;
}
/**
 * Distribution-free confidence interval for the q-quantile of INDEPENDENT samples: the order
 * statistics X(l) and X(u) such that P(X(l) <= true quantile <= X(u)) >= confidence, from the
 * binomial count of samples below the quantile. Returns null when there are too few samples for
 * an interval at this confidence (fewer than 72 for a two-sided 95 % interval of p95).
 * Not valid for closed-loop latencies, whose consecutive samples share their queue (it covers
 * 28-58 % instead of 95 % there): a rung is judged by src/stats/rung-decision.ts. Kept for
 * independent data and as the peer of `npm run bench:coverage`.
 */
function quantileConfidenceInterval(sorted, q, confidence = 0.95) {
    const n = sorted.length;
    if (n === 0)
        return null;
    const alpha = (1 - confidence) / 2;
    const cdf = binomialCdf(n, q);
    const below = (j) => (j <= 0 ? 0 : cdf[j - 1]); // P(B <= j-1)
    // Largest l (1-based) with P(B <= l-1) <= alpha, smallest u with P(B <= u-1) >= 1-alpha.
    let lowRank = 0;
    for (let j = 1; j <= n; j++) {
        if (below(j) <= alpha)
            lowRank = j;
        else
            break;
    }
    let highRank = 0;
    for (let j = 1; j <= n; j++) {
        if (below(j) >= 1 - alpha) {
            highRank = j;
            break;
        }
    }
    if (lowRank === 0 || highRank === 0)
        return null;
    return {
        low: sorted[lowRank - 1],
        high: sorted[highRank - 1],
        coverage: below(highRank) - below(lowRank),
    };
}
function summarize(values) {
    const sorted = quantiles_sortedAscending(values);
    return {
        count: sorted.length,
        mean: mean(sorted),
        p50: quantileSorted(sorted, 0.5),
        p95: quantileSorted(sorted, 0.95),
        p99: quantileSorted(sorted, 0.99),
        p95Interval: quantileConfidenceInterval(sorted, 0.95),
    };
}

;// CONCATENATED MODULE: ./src/stats/in-flight-sim.ts
/**
 * What a tracked metric shows when one instance receives Poisson arrivals: a seeded simulation of
 * one instance in simulated time. Pure and deterministic (same input, same numbers).
 *
 * The instance: `lanes` identical lanes fed from one FIFO (the device model the emulator and the
 * device derivation use), each request holding a lane for a log-normal service time (mean
 * `serviceMeanS`, shape `serviceSigma`); at most `queueLimit` requests in flight (queued plus
 * executing); an arrival that finds the limit is turned away (an overflow).
 *
 * ConcurrentRequestsPerModel is the number of requests in flight on the instance; CloudWatch
 * publishes its Maximum per period. Under a closed loop that is the loop's concurrency; under
 * random arrivals the per-period maximum lies far above the time-average in flight, and that
 * maximum is what target tracking compares with its target. The simulation records the in-flight
 * count at every event and keeps the maximum of each period, after a warm-up of one period.
 */


/** Arrivals one simulation may draw: bounds the work whatever the rate (~30 ms). */
const MAX_ARRIVALS = 100_000;
const MIN_PERIODS = 200;
const IN_FLIGHT_SIM_DEFAULTS = { periods: 600, seed: 1 };
/** A log-normal sampler with the given mean and shape (Box-Muller on the seeded generator). */
function lognormalSampler(random, mean, sigma) {
    if (!(sigma > 0))
        return () => mean;
    const mu = Math.log(mean) - (sigma * sigma) / 2;
    let spare = null;
    return () => {
        let z;
        if (spare !== null) {
            z = spare;
            spare = null;
        }
        else {
            const u = 1 - random();
            const v = random();
            const r = Math.sqrt(-2 * Math.log(u));
            z = r * Math.cos(2 * Math.PI * v);
            spare = r * Math.sin(2 * Math.PI * v);
        }
        return Math.exp(mu + sigma * z);
    };
}
function simulatePerPeriodMaximum(input) {
    const seed = input.seed ?? IN_FLIGHT_SIM_DEFAULTS.seed;
    const lanes = Math.max(1, Math.floor(input.lanes));
    const limit = Math.max(1, Math.floor(input.queueLimit));
    const rate = input.rateRps;
    const transit = Math.max(0, input.transitS ?? 0);
    const wanted = input.periods ?? IN_FLIGHT_SIM_DEFAULTS.periods;
    // The work is bounded whatever the rate: at most MAX_ARRIVALS arrivals. Where even MIN_PERIODS
    // whole periods hold more, each period is shortened to fit: the maximum over a shorter window
    // is never above the period's (a lower estimate of the level, so a target from it scales out
    // earlier, never later).
    const periodS = Math.min(input.periodS, MAX_ARRIVALS / Math.max(1e-9, rate * MIN_PERIODS));
    const affordable = Math.floor(MAX_ARRIVALS / Math.max(1, rate * periodS));
    const periods = Math.max(1, Math.min(wanted, Math.max(MIN_PERIODS, affordable)));
    const random = prng_mulberry32(seed);
    const service = lognormalSampler(random, input.serviceMeanS, input.serviceSigma);
    const interArrival = () => -Math.log(1 - random()) / rate;
    const laneFree = new Float64Array(lanes); // when each lane next becomes free
    const finishes = new MinHeap(); // finish times of the requests in flight
    const maxima = [];
    const warmupEnd = periodS;
    const end = warmupEnd + periods * periodS;
    let boundary = periodS;
    let periodMax = 0;
    let area = 0; // integral of in-flight over [warmupEnd, end]
    let lastChange = 0;
    let arrivals = 0;
    let overflows = 0;
    const accumulate = (t) => {
        const from = Math.max(lastChange, warmupEnd);
        if (t > from)
            area += finishes.size * (t - from);
        lastChange = t;
    };
    // Departures and period boundaries up to time t, in time order.
    const advanceTo = (t) => {
        for (;;) {
            const departure = finishes.size > 0 ? finishes.peek() : Number.POSITIVE_INFINITY;
            if (boundary <= departure && boundary <= t) {
                if (boundary > warmupEnd)
                    maxima.push(periodMax);
                periodMax = finishes.size;
                boundary += periodS;
                continue;
            }
            if (departure > t)
                return;
            accumulate(departure);
            finishes.pop();
        }
    };
    let now = rate > 0 ? interArrival() : end;
    while (now < end) {
        advanceTo(now);
        accumulate(now);
        const counted = now >= warmupEnd;
        if (counted)
            arrivals++;
        if (finishes.size >= limit) {
            if (counted)
                overflows++;
        }
        else {
            // FIFO: the request takes the lane that frees first, after every request admitted before it.
            let lane = 0;
            for (let i = 1; i < lanes; i++)
                if (laneFree[i] < laneFree[lane])
                    lane = i;
            const finish = Math.max(now, laneFree[lane]) + service();
            laneFree[lane] = finish;
            finishes.push(finish + transit);
            if (finishes.size > periodMax)
                periodMax = finishes.size;
        }
        now += interArrival();
    }
    advanceTo(end);
    accumulate(end);
    const sorted = maxima.sort((a, b) => a - b);
    const quantile = (q) => quantileSorted(sorted, q) ?? 0;
    return {
        p10: quantile(0.1),
        p50: quantile(0.5),
        p90: quantile(0.9),
        quantile,
        meanInFlight: area / (end - warmupEnd),
        overflowShare: arrivals > 0 ? overflows / arrivals : 0,
        periods: sorted.length,
        seed,
    };
}
/** A binary min-heap of numbers (finish times). */
class MinHeap {
    items = [];
    get size() {
        return this.items.length;
    }
    peek() {
        return this.items[0];
    }
    push(value) {
        const items = this.items;
        items.push(value);
        let i = items.length - 1;
        while (i > 0) {
            const parent = (i - 1) >> 1;
            if (items[parent] <= value)
                break;
            items[i] = items[parent];
            i = parent;
        }
        items[i] = value;
    }
    pop() {
        const items = this.items;
        const top = items[0];
        const last = items.pop();
        if (items.length > 0) {
            let i = 0;
            for (;;) {
                const left = 2 * i + 1;
                if (left >= items.length)
                    break;
                const right = left + 1;
                const child = right < items.length && items[right] < items[left] ? right : left;
                if (items[child] >= last)
                    break;
                items[i] = items[child];
                i = child;
            }
            items[i] = last;
        }
        return top;
    }
}
/**
 * Monte Carlo of the surge on the simulated device: held at `rateRps` for `warmupS`, then
 * `surgeRatio x rateRps` for `horizonS`; the share of trials in which an arrival found the limit
 * during the surge. The check of the exact chain the plan computes with (which models departures
 * as a birth-death process at the measured throughput: more variable than a log-normal device).
 */
function simulateSurgeOverflow(input) {
    const random = mulberry32(input.seed ?? IN_FLIGHT_SIM_DEFAULTS.seed);
    const service = lognormalSampler(random, input.serviceMeanS, input.serviceSigma);
    const lanes = Math.max(1, Math.floor(input.lanes));
    const limit = Math.max(1, Math.floor(input.queueLimit));
    let overflowed = 0;
    for (let trial = 0; trial < input.trials; trial++) {
        const laneFree = new Float64Array(lanes);
        const finishes = new MinHeap();
        const end = input.warmupS + input.horizonS;
        let now = 0;
        let hit = false;
        for (;;) {
            const rate = now < input.warmupS ? input.rateRps : input.surgeRatio * input.rateRps;
            now += -Math.log(1 - random()) / rate;
            if (now >= end)
                break;
            while (finishes.size > 0 && finishes.peek() <= now)
                finishes.pop();
            if (finishes.size >= limit) {
                if (now >= input.warmupS) {
                    hit = true;
                    break;
                }
                continue;
            }
            let lane = 0;
            for (let i = 1; i < lanes; i++)
                if (laneFree[i] < laneFree[lane])
                    lane = i;
            const finish = Math.max(now, laneFree[lane]) + service();
            laneFree[lane] = finish;
            finishes.push(finish);
        }
        if (hit)
            overflowed++;
    }
    return { overflowShare: overflowed / input.trials, trials: input.trials };
}

;// CONCATENATED MODULE: ./src/plan/operating-point.ts



/** Bisection steps for lambda_safe: resolution capacity / 2^14. */
const RATE_BISECTION_STEPS = 14;
/** Scale-in alarm: 15 consecutive 60 s periods at or below the threshold. */
const SCALE_IN_PERIODS = 15;
const SCALE_IN_PERIOD_S = 60;
/** Per-period quantile the scale-in threshold sits at: 0.5^(1/15), ~0.9548. */
const SCALE_IN_QUANTILE = 0.5 ** (1 / SCALE_IN_PERIODS);
/** How each tracked metric is published and how fast target tracking reacts on it (AWS). */
const METRIC_SPECS = {
    // High-resolution predefined metric: 10 s periods, the alarm on 3 datapoints.
    ConcurrentRequestsPerModel: {
        statistic: 'Maximum',
        periodS: 10,
        alarmDatapoints: 3,
        label: 'the per-period maximum in flight',
    },
    // Classic predefined metric: 1 min periods, the alarm on 3 datapoints.
    InvocationsPerInstance: {
        statistic: 'Sum',
        periodS: 60,
        alarmDatapoints: 3,
        label: 'invocations per minute per instance',
    },
};
/**
 * InvocationsPerInstance's detection lag: its alarm's datapoints plus one period of publication
 * delay (assumed: a datapoint exists once its period closes), as ttotal computes it for the
 * deployed alarms.
 */
const invocationsPolicyLagS = () => METRIC_SPECS.InvocationsPerInstance.periodS * (METRIC_SPECS.InvocationsPerInstance.alarmDatapoints + 1);
/** Highest throughput the server reaches within Q_max. */
function capacityOf(curve, queueLimit) {
    let capacity = 0;
    for (let n = 1; n <= Math.max(1, Math.floor(queueLimit)); n++) {
        capacity = Math.max(capacity, throughputAt(curve, n));
    }
    return capacity;
}
/**
 * p95 TTFAB of arrivals at the end of T_plan under the surge: the in-flight count an arrival
 * finds at the 95th percentile of the transient distribution, read on the ladder (an arrival
 * finding n waits like a closed loop of n + 1). Infinity when that percentile is turned away.
 */
function surgeP95(input, rate, held) {
    const limit = Math.max(1, Math.floor(input.queueLimit));
    const { distribution } = transientDistribution({
        curve: input.curve,
        queueLimit: limit,
        arrivalRate: input.surgeRatio * rate,
        start: held,
        horizonS: input.tPlanS,
    });
    let cumulative = 0;
    for (let n = 0; n <= limit; n++) {
        cumulative += distribution[n];
        if (cumulative >= 0.95) {
            if (n >= limit)
                return Number.POSITIVE_INFINITY;
            return input.p95AtConcurrency(n + 1) ?? Number.POSITIVE_INFINITY;
        }
    }
    return Number.POSITIVE_INFINITY;
}
function checkRate(input, rate) {
    const limit = Math.max(1, Math.floor(input.queueLimit));
    const held = stationaryDistribution(input.curve, limit, rate);
    const at = (arrivalRate) => overflowProbability({
        curve: input.curve,
        queueLimit: limit,
        arrivalRate,
        start: held,
        horizonS: input.tPlanS,
    });
    const surge = at(input.surgeRatio * rate);
    const baseline = at(rate);
    return {
        surge: surge.probability,
        baseline: baseline.probability,
        surgeUpper: surge.upperBound,
        baselineUpper: baseline.upperBound,
        held,
        exact: surge.exact && baseline.exact,
    };
}
/** Largest rate in [0, high] for which `ok` holds, by bisection (ok is monotone: true below). */
function bisectRate(high, ok) {
    let low = 0;
    for (let i = 0; i < RATE_BISECTION_STEPS; i++) {
        const mid = (low + high) / 2;
        if (ok(mid))
            low = mid;
        else
            high = mid;
    }
    return low;
}
/**
 * lambda_safe by bisection on the rate, judged on upper bounds (never optimistic): first the
 * overflow tolerance, then, only if the SLO after the surge fails there, both together.
 */
function surgeSafeRate(input) {
    const capacity = capacityOf(input.curve, input.queueLimit);
    const p = input.maxOverflowProbability;
    const overflowHolds = (c) => c.surgeUpper <= p && c.baselineUpper <= p;
    let rate = bisectRate(capacity, (r) => overflowHolds(checkRate(input, r)));
    let bound = 'surge';
    const sloHolds = (r, c) => surgeP95(input, r, c.held) <= input.sloMs;
    if (!sloHolds(rate, checkRate(input, rate))) {
        rate = bisectRate(rate, (r) => {
            const c = checkRate(input, r);
            return overflowHolds(c) && sloHolds(r, c);
        });
        bound = 'slo';
    }
    if (input.lambdaMaxRps !== null && input.lambdaMaxRps < rate) {
        rate = input.lambdaMaxRps;
        bound = 'lambda_max';
    }
    const final = checkRate(input, rate);
    const p95 = surgeP95(input, rate, final.held);
    return {
        lambdaSafeRps: rate,
        bound,
        capacityRps: capacity,
        share: capacity > 0 ? rate / capacity : 0,
        surgeProbability: final.surge,
        baselineProbability: final.baseline,
        surgeP95TtfabMs: Number.isFinite(p95) ? p95 : null,
        exact: final.exact,
    };
}
const roundLevel = (level) => ({
    ...level,
    rate_rps: round(level.rate_rps, 6),
    p10: round(level.p10, 3),
    p50: round(level.p50, 3),
    p90: round(level.p90, 3),
});
/**
 * ConcurrentRequestsPerModel's per-10 s Maximum at `rate`: measured (or interpolated between
 * measured rates) when goodput's join bracketed it, else computed by the seeded simulation.
 */
function concurrencyLevel(rate, device, queueLimit, measured) {
    const points = [...measured].sort((a, b) => a.rate_rps - b.rate_rps);
    const exact = points.find((p) => Math.abs(p.rate_rps - rate) <= 1e-9 * Math.max(1, rate));
    if (exact) {
        return roundLevel({ ...exact, rate_rps: rate, origin: 'measured', method: 'goodput CloudWatch join' });
    }
    for (let i = 0; i + 1 < points.length; i++) {
        const a = points[i];
        const b = points[i + 1];
        if (a.rate_rps < rate && rate < b.rate_rps) {
            const f = (rate - a.rate_rps) / (b.rate_rps - a.rate_rps);
            const mix = (x, y) => x + (y - x) * f;
            return roundLevel({
                rate_rps: rate,
                p10: mix(a.p10, b.p10),
                p50: mix(a.p50, b.p50),
                p90: mix(a.p90, b.p90),
                origin: 'interpolated',
                method: `goodput CloudWatch join, between ${round(a.rate_rps, 3)} and ${round(b.rate_rps, 3)} requests/s`,
            });
        }
    }
    const sim = simulatePerPeriodMaximum({
        lanes: device.lanes,
        serviceMeanS: device.serviceMeanS,
        serviceSigma: device.serviceSigma,
        rateRps: rate,
        queueLimit,
        periodS: METRIC_SPECS.ConcurrentRequestsPerModel.periodS,
    });
    return roundLevel({
        rate_rps: rate,
        p10: sim.p10,
        p50: sim.p50,
        p90: sim.p90,
        origin: 'computed',
        method: `queueing simulation of one instance (seed ${sim.seed}, ${sim.periods} periods of 10 s)`,
    });
}
/** The standard normal quantile (Acklam's rational approximation, |error| < 1.2e-9). */
function normalQuantile(p) {
    const a = [
        -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
        2.506628277459239,
    ];
    const b = [
        -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
    ];
    const c = [
        -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
        2.938163982698783,
    ];
    const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
    const low = 0.02425;
    const [a0, a1, a2, a3, a4, a5] = a;
    const [b0, b1, b2, b3, b4] = b;
    const [c0, c1, c2, c3, c4, c5] = c;
    const [d0, d1, d2, d3] = d;
    if (p < low) {
        const q = Math.sqrt(-2 * Math.log(p));
        return ((((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
            ((((d0 * q + d1) * q + d2) * q + d3) * q + 1));
    }
    if (p > 1 - low) {
        const q = Math.sqrt(-2 * Math.log(1 - p));
        return (-(((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
            ((((d0 * q + d1) * q + d2) * q + d3) * q + 1));
    }
    const q = p - 0.5;
    const r = q * q;
    return (((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) /
        (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1));
}
/** The smallest k with P(Poisson(mean) <= k) >= q. */
function poissonQuantile(mean, q) {
    if (!(mean > 0))
        return 0;
    if (mean > 1e5) {
        // Normal approximation (continuity-corrected): exact summation would take mean terms.
        return Math.max(0, Math.ceil(mean + normalQuantile(q) * Math.sqrt(mean) - 0.5));
    }
    // Start from the mode's neighbourhood in log space (no underflow for large means).
    let k = 0;
    let logPmf = -mean;
    let cdf = Math.exp(logPmf);
    const limit = mean + 40 * Math.sqrt(mean) + 40;
    while (cdf < q && k < limit) {
        k++;
        logPmf += Math.log(mean) - Math.log(k);
        cdf += Math.exp(logPmf);
    }
    return k;
}
/** InvocationsPerInstance's Sum per 60 s at `rate`: Poisson(60 x rate), exactly. */
function invocationsLevel(rate) {
    const mean = SCALE_IN_PERIOD_S * rate;
    return roundLevel({
        rate_rps: rate,
        p10: poissonQuantile(mean, 0.1),
        p50: mean,
        p90: poissonQuantile(mean, 0.9),
        origin: 'computed',
        method: '60 s x the rate (Poisson counts)',
    });
}
/** Instances for a load: by rate (rps), or by the mean in flight at the rate (streams). */
function instancesAt(load, rate, meanInFlight) {
    if (load.value <= 0)
        return 0;
    const perInstance = load.unit === 'rps' ? rate : meanInFlight;
    if (!(perInstance > 0))
        return Number.POSITIVE_INFINITY;
    return Math.ceil(Number((load.value / perInstance).toFixed(9)));
}
function policyCandidate(input) {
    const spec = METRIC_SPECS[input.metric];
    const tPlanS = input.tTotalS + input.policyLagS;
    const safe = surgeSafeRate({ ...input, tPlanS });
    const rate = safe.lambdaSafeRps;
    const scaleInRate = rate * input.scaleInRatio;
    let target;
    let scaleIn;
    let threshold;
    if (input.metric === 'ConcurrentRequestsPerModel') {
        target = concurrencyLevel(rate, input.device, input.queueLimit, input.measuredLevels);
        // The scale-in alarm reads 60 s Maxima: simulated at lambda_in (goodput measures 10 s ones).
        const minute = simulatePerPeriodMaximum({
            lanes: input.device.lanes,
            serviceMeanS: input.device.serviceMeanS,
            serviceSigma: input.device.serviceSigma,
            rateRps: scaleInRate,
            queueLimit: input.queueLimit,
            periodS: SCALE_IN_PERIOD_S,
        });
        scaleIn = roundLevel({
            rate_rps: scaleInRate,
            p10: minute.p10,
            p50: minute.p50,
            p90: minute.p90,
            origin: 'computed',
            method: `queueing simulation of one instance (seed ${minute.seed}, ${minute.periods} periods of 60 s)`,
        });
        threshold = Math.max(1, Math.ceil(minute.quantile(SCALE_IN_QUANTILE)));
    }
    else {
        target = invocationsLevel(rate);
        scaleIn = invocationsLevel(scaleInRate);
        threshold = poissonQuantile(SCALE_IN_PERIOD_S * scaleInRate, SCALE_IN_QUANTILE);
    }
    const meanInFlight = simulatePerPeriodMaximum({
        lanes: input.device.lanes,
        serviceMeanS: input.device.serviceMeanS,
        serviceSigma: input.device.serviceSigma,
        rateRps: rate,
        queueLimit: input.queueLimit,
        periodS: METRIC_SPECS.ConcurrentRequestsPerModel.periodS,
        periods: 200,
    }).meanInFlight;
    const peakInstances = instancesAt(input.peak, rate, meanInFlight);
    const troughInstances = instancesAt(input.trough, rate, meanInFlight);
    const p = input.maxOverflowProbability;
    return {
        metric: input.metric,
        statistic: spec.statistic,
        period_s: spec.periodS,
        policy_lag_s: round(input.policyLagS, 6),
        policy_lag_origin: input.policyLagOrigin,
        t_plan_s: round(tPlanS, 6),
        lambda_safe_rps: round(rate, 6),
        lambda_safe_bound: safe.bound,
        throughput_share: round(Math.min(1, safe.share), 6),
        surge_overflow_probability: round(safe.surgeProbability, 4),
        baseline_overflow_probability: round(safe.baselineProbability, 4),
        surge_p95_ttfab_ms: safe.surgeP95TtfabMs === null ? null : round(safe.surgeP95TtfabMs, 3),
        target,
        scale_in_rate_rps: round(scaleInRate, 6),
        scale_in: scaleIn,
        scale_in_threshold: round(threshold, 3),
        target_value: round(Math.max(input.metric === 'ConcurrentRequestsPerModel' ? 1 : 0.001, target.p50), 3),
        peak_instances: peakInstances,
        trough_instances: troughInstances,
        cost_per_hour_usd: input.instanceHourlyUsd === null ? null : round(peakInstances * input.instanceHourlyUsd, 2),
        holds: safe.surgeProbability <= p && safe.baselineProbability <= p && rate > 0,
    };
}
/** The candidate to deploy: the lowest instance-hours at peak among those that hold. */
function chooseCandidate(candidates) {
    const holding = candidates.filter((c) => c.holds);
    const pool = holding.length > 0 ? holding : candidates;
    return [...pool].sort((a, b) => a.peak_instances - b.peak_instances ||
        (holding.length > 0 ? 0 : a.surge_overflow_probability - b.surge_overflow_probability) ||
        a.t_plan_s - b.t_plan_s)[0];
}
const operating_point_pct = (value) => `${(value * 100).toFixed(1)} %`;
const num = (value, digits = 2) => value.toFixed(digits);
/** Why the chosen candidate, in one sentence (against the seed's closed-loop rule). */
function policyReason(chosen, seed, saturationConcurrency, maxOverflowProbability, lanes) {
    const why = lanes <= 1 || saturationConcurrency <= 2
        ? 'a serial device: concurrency above 1 adds no throughput'
        : seed.throughput_share >= 0.95
            ? `the device saturates at ${saturationConcurrency} in flight`
            : `the closed-loop target leaves ${operating_point_pct(1 - seed.throughput_share)} throughput headroom`;
    const seedTarget = seed.target_value === null ? `C_scale_max ${num(seed.c_scale_max, 1)}` : `${seed.target_value}`;
    const seedFate = seed.holds
        ? `it would hold (overflow ${operating_point_pct(seed.surge_overflow_probability)} with the surge)`
        : seed.baseline_overflow_probability > maxOverflowProbability
            ? `it overflows with probability ${operating_point_pct(seed.baseline_overflow_probability)} without any surge`
            : `a surge overflows it with probability ${operating_point_pct(seed.surge_overflow_probability)}`;
    const spec = METRIC_SPECS[chosen.metric];
    return `${why}, so the closed-loop target ${seedTarget} runs each instance at ${operating_point_pct(seed.throughput_share)} of its throughput and ${seedFate}; tracking ${spec.label} (${chosen.metric}, ${chosen.statistic} per ${chosen.period_s} s) at ${chosen.target_value}, its level at ${num(chosen.lambda_safe_rps)} requests/s (${operating_point_pct(chosen.throughput_share)} of throughput), instead`;
}

;// CONCATENATED MODULE: ./src/plan/plan-request.ts
/**
 * What `plan` is asked: the measurements, the operator's choices, and the refusals that depend on
 * the request alone (each names the flag or file and the fix). Pure.
 */


/** A stated T_total has no policy to read: the detection lag is the 60 s bound. */
const plan_request_POLICY_LAG_BOUND_S = 60;
/** Refusals that depend only on the request: each names the flag or file and the fix. */
function checkPlanRequest(request) {
    const { choices, qmax, ttotal } = request;
    const warnings = [];
    if (choices.surgeRatio < 1 || choices.surgeRatio >= 1.5) {
        throw new errors_UsageError(`surge ratio ${choices.surgeRatio} is outside [1, 1.5): the scale band (1-2h)*Q_max would vanish. Pass --surge-ratio between 1 and 1.5.`);
    }
    if (choices.peak.value <= 0) {
        throw new errors_UsageError(`no peak load: set peak_rps (or peak_streams) for model ${request.modelName} in the config, or pass --peak-rps N / --peak-streams N.`);
    }
    if (choices.trough.unit !== choices.peak.unit) {
        throw new errors_UsageError(`peak load is in ${choices.peak.unit} but trough load in ${choices.trough.unit}: state both in the same unit (--peak-rps/--trough-rps or --peak-streams/--trough-streams).`);
    }
    if (choices.trough.value > choices.peak.value) {
        throw new errors_UsageError(`trough load ${choices.trough.value} ${choices.trough.unit} is above peak load ${choices.peak.value}: fix --trough-${choices.trough.unit} or --peak-${choices.peak.unit}.`);
    }
    if (choices.sloMs !== qmax.slo_ms) {
        throw new errors_UsageError(`SLO ${choices.sloMs} ms differs from the ${qmax.slo_ms} ms the ladder in ${request.qmaxFile} was judged against: Q_max is defined by its SLO and cannot be re-used for another. Re-measure with \`scalegate qmax --slo-ms ${choices.sloMs}\`, or plan with --slo-ms ${qmax.slo_ms}.`);
    }
    if (qmax.model_name !== request.modelName) {
        throw new errors_UsageError(`${request.qmaxFile} was measured for model ${qmax.model_name}, not ${request.modelName}: pass --model ${qmax.model_name} or the right qmax artifact.`);
    }
    if ((ttotal === null) === (request.tTotalStatedS === null)) {
        throw new errors_UsageError('give exactly one of --ttotal FILE (measured) and --assume-t-total SECONDS (stated).');
    }
    if (ttotal) {
        if (ttotal.model_name !== request.modelName) {
            throw new errors_UsageError(`${request.ttotalFile} was measured for model ${ttotal.model_name}, not ${request.modelName}: pass the right ttotal artifact.`);
        }
        const differences = fingerprintDifferences(qmax.fingerprint, ttotal.fingerprint);
        if (differences.length > 0) {
            const what = differences.map((d) => `${d.field} ${d.left} vs ${d.right}`).join('; ');
            const message = `${request.qmaxFile} (${fingerprint_fingerprintSlug(qmax.fingerprint)}) and ${request.ttotalFile} (${fingerprint_fingerprintSlug(ttotal.fingerprint)}) were measured on different configurations (${what}): Q_max and T_total of different containers or instance types do not describe one endpoint.`;
            if (!request.allowConfigMismatch) {
                throw new errors_UsageError(`${message} Measure both on the same configuration, or pass --allow-config-mismatch to plan anyway (recorded in the plan).`);
            }
            warnings.push(`${message} Planned anyway with --allow-config-mismatch.`);
        }
    }
    if (request.drill)
        warnings.push(...checkDrill(request, request.drill));
    const goodput = request.goodput ?? null;
    if (goodput) {
        const file = request.goodputFile ?? 'the goodput artifact';
        if (goodput.model_name !== request.modelName) {
            throw new errors_UsageError(`${file} was measured for model ${goodput.model_name}, not ${request.modelName}: pass the right goodput artifact with --goodput.`);
        }
        if (!goodput.decided || goodput.lambda_max_rps === null) {
            throw new errors_UsageError(`${file} is one shard of a goodput run (nothing decided yet): combine every shard with \`scalegate merge <files...>\` and plan with the merged file.`);
        }
        if (goodput.slo_ms !== choices.sloMs) {
            throw new errors_UsageError(`${file}: lambda_max was measured against a ${goodput.slo_ms} ms SLO, the plan uses ${choices.sloMs} ms: lambda_max is defined by its SLO. Re-measure with ${remeasure('goodput', request.modelName, ` --slo-ms ${choices.sloMs}`)}.`);
        }
        const differences = fingerprintDifferences(qmax.fingerprint, goodput.fingerprint);
        if (differences.length > 0) {
            const what = differences.map((d) => `${d.field} ${d.left} vs ${d.right}`).join('; ');
            const message = `${request.qmaxFile} (${fingerprint_fingerprintSlug(qmax.fingerprint)}) and ${file} (${fingerprint_fingerprintSlug(goodput.fingerprint)}) were measured on different configurations (${what}): Q_max and lambda_max of different containers or instance types do not describe one endpoint.`;
            if (!request.allowConfigMismatch) {
                throw new errors_UsageError(`${message} Measure both on the same configuration, or pass --allow-config-mismatch to plan anyway (recorded in the plan).`);
            }
            warnings.push(`${message} Planned anyway with --allow-config-mismatch.`);
        }
    }
    return warnings;
}
/**
 * A drill whose policy lag may replace the plan's: this model's, measured on the qmax's
 * configuration (or allowed), with a lag measured from a busy endpoint (a scale-out whose alarm
 * saw its whole evaluation range: from an idle endpoint the alarm fires sooner than a surge from
 * the target would see).
 */
function checkDrill(request, drill) {
    const file = request.drillFile ?? 'the drill';
    if (drill.model_name !== request.modelName) {
        throw new errors_UsageError(`${file} drilled model ${drill.model_name}, not ${request.modelName}: pass this model's drill artifact.`);
    }
    const lag = drill.analysis.policy_lag;
    if (lag.seconds === null) {
        throw new errors_UsageError(`${file} measured no policy lag (${lag.detail}): there is nothing to replace the plan's with. Drill again so that a scale-out happens (\`scalegate drill --model ${request.modelName} --steady-rps <below the target> --surge-ratio <k>\`), or plan without --drill.`);
    }
    if (lag.evaluation === 'partial') {
        throw new errors_UsageError(`${file}: its policy lag (${lag.seconds} s) comes from a scale-out that started from an idle endpoint, whose alarm fired on fewer datapoints than configured; a surge from the target waits for all of them. Drill with --steady-rps below the target so that the surge starts the scale-out from a busy endpoint, or plan without --drill.`);
    }
    const differences = fingerprintDifferences(request.qmax.fingerprint, drill.fingerprint);
    if (differences.length > 0) {
        const what = differences.map((d) => `${d.field} ${d.left} vs ${d.right}`).join('; ');
        const message = `${request.qmaxFile} and ${file} were measured on different configurations (${what}).`;
        if (!request.allowConfigMismatch) {
            throw new errors_UsageError(`${message} A policy lag measured on another endpoint configuration does not time this one: drill the endpoint the qmax measured, or pass --allow-config-mismatch (recorded in the plan).`);
        }
        return [`${message} Planned anyway with --allow-config-mismatch.`];
    }
    return [];
}

;// CONCATENATED MODULE: ./src/plan/derive.ts
/**
 * From a qmax artifact, a ttotal artifact (or a stated T_total) and the operator's choices to the
 * plan artifact: values, findings, verdict. Pure and deterministic: the run id and the time are
 * inputs, and the surge probability is computed by uniformization (numerically exact, no random
 * numbers; how far it moves with its inputs is the plan's sensitivity band).
 */












function throughputCurve(qmax) {
    const byConcurrency = new Map();
    for (const step of qmax.steps) {
        if (!step.usable)
            continue;
        byConcurrency.set(step.concurrency, [...(byConcurrency.get(step.concurrency) ?? []), step.achieved_rps]);
    }
    return [...byConcurrency.entries()]
        .map(([concurrency, values]) => ({ concurrency, rps: values.reduce((a, b) => a + b, 0) / values.length }))
        .sort((a, b) => a.concurrency - b.concurrency);
}
function ratioPoints(qmax) {
    const byConcurrency = new Map();
    for (const step of qmax.steps) {
        if (!step.usable || step.cw_ratio === null)
            continue;
        byConcurrency.set(step.concurrency, [...(byConcurrency.get(step.concurrency) ?? []), step.cw_ratio]);
    }
    return [...byConcurrency.entries()].map(([concurrency, values]) => ({
        concurrency,
        ratio: values.reduce((a, b) => a + b, 0) / values.length,
    }));
}
const inputOf = (file, artifact) => ({
    file,
    run_id: artifact.run_id,
    slug: fingerprint_fingerprintSlug(artifact.fingerprint),
    fingerprint: artifact.fingerprint,
});
/** The ladder's p95 TTFAB at any concurrency: linear between usable rungs, null beyond them. */
function p95Curve(qmax) {
    const points = usableRungs(qmax).flatMap((c) => {
        const p95 = ladderP95(qmax, c);
        return p95 === null ? [] : [{ c, p95 }];
    });
    return (concurrency) => {
        const first = points[0];
        if (!first)
            return null;
        if (concurrency <= first.c)
            return first.p95;
        for (let i = 1; i < points.length; i++) {
            const a = points[i - 1];
            const b = points[i];
            if (concurrency <= b.c)
                return a.p95 + ((b.p95 - a.p95) * (concurrency - a.c)) / (b.c - a.c);
        }
        return null;
    };
}
/** goodput's per-rate CloudWatch levels (ConcurrentRequestsPerModel Maximum per 10 s), when joined. */
function measuredLevels(goodput) {
    return (goodput?.rungs ?? []).flatMap(({ rate_rps, metric_level: m }) => m ? [{ rate_rps, p10: m.p10, p50: m.p50, p90: m.p90 }] : []);
}
/** The plan's region: the measurement's, else (legacy) the config's, labelled by where it came from. */
function regionOf(qmax, legacyRegion) {
    if (qmax.fingerprint.region !== null)
        return { region: qmax.fingerprint.region, source: 'measured' };
    if (legacyRegion !== null)
        return { region: legacyRegion, source: REGION_FROM_CONFIG };
    return { region: null, source: 'not recorded' };
}
/**
 * The plan from its inputs. Inputs that pass their schemas can still combine into a plan no
 * deployment could hold (say a peak load that needs more instances than any account has): that
 * is refused as a usage error naming the values, never written and never an exit 1.
 */
function derivePlan(request) {
    const plan = derivePlanValues(request);
    const checked = planArtifactSchema.safeParse(plan);
    if (!checked.success) {
        throw new errors_UsageError(`the plan from ${request.qmaxFile}${request.ttotalFile ? ` and ${request.ttotalFile}` : ''} and the chosen load (peak ${request.choices.peak.value} ${request.choices.peak.unit}, trough ${request.choices.trough.value} ${request.choices.trough.unit}) is outside what a deployment can hold:\n${issues_formatZodIssues(checked.error)}\nCheck the peak/trough load (config or --peak-rps/--peak-streams) and the measurements.`);
    }
    return checked.data;
}
function derivePlanValues(request) {
    const mismatchWarnings = checkPlanRequest(request);
    const { qmax, ttotal, choices } = request;
    const curve = throughputCurve(qmax);
    if (curve.length === 0) {
        throw new errors_UsageError(`${request.qmaxFile}: no usable rung, so there is no throughput to size from. Re-measure with ${remeasure('qmax', request.modelName)}.`);
    }
    // A T_total that ends at in_service is carried as a lower bound into every output (and the gate).
    const tTotalLowerBound = ttotal_isLowerBound(ttotal);
    // Repeated scale-outs: their upper prediction bound; one: that observation, labelled so.
    const planned = ttotal && !tTotalLowerBound ? plannedTtotal(ttotal) : null;
    const tTotalS = planned ? planned.seconds : ttotal ? ttotal.t_total_s : request.tTotalStatedS;
    const tTotalOrigin = ttotal
        ? tTotalLowerBound
            ? 'lower-bound'
            : (planned?.origin ?? 'measured')
        : 'stated';
    const drill = request.drill ?? null;
    const drillLag = drill ? plannedDrillLag(drill) : null;
    const drilledLagS = drillLag?.seconds ?? null;
    const policyLagS = drilledLagS ?? (ttotal ? ttotal.policy_lag_s : plan_request_POLICY_LAG_BOUND_S);
    const policyLagBounded = drilledLagS !== null ? false : ttotal ? ttotal.policy_lag_bounded : true;
    // Measured by a drill; else read from the deployed alarms plus an assumed publication delay
    // (computed, not measured); else the 60 s bound.
    const policyLagOrigin = drilledLagS !== null ? 'measured' : policyLagBounded ? 'bound' : 'computed';
    // What the lag would have been without the drill: the drill's prediction to compare with.
    const replacedLagS = ttotal ? ttotal.policy_lag_s : plan_request_POLICY_LAG_BOUND_S;
    const replacedLagOrigin = ttotal && !ttotal.policy_lag_bounded ? 'computed' : 'bound';
    const tPlanS = planningHorizonS(tTotalS, policyLagS);
    const band = scaleBand(qmax.q_max, choices.surgeRatio);
    const r = band.scaleInConcurrency > 0 ? band.scaleOutConcurrency / band.scaleInConcurrency : null;
    const minSafe = smallestSafeMinimum(band.scaleOutConcurrency, band.scaleInConcurrency);
    const wMaxS = waitBudgetS(choices.sloMs, qmax.s_p95_s);
    const ratio = ratioNearest(ratioPoints(qmax), band.scaleOutConcurrency);
    const xTargetRps = throughputAtTarget(curve, band.scaleOutConcurrency);
    const peakInstances = instancesFor(choices.peak, xTargetRps, band.scaleOutConcurrency);
    const troughInstances = instancesFor(choices.trough, xTargetRps, band.scaleOutConcurrency);
    const minInstances = Math.max(choices.minInstancesFloor, troughInstances);
    const maxInstances = Math.max(minInstances, peakInstances);
    const naivePeak = choices.peak.unit === 'rps' && band.scaleOutConcurrency > 0
        ? naiveInstances(choices.peak.value, qmax.s_mean_s, band.scaleOutConcurrency)
        : null;
    const surge = qmax.q_max > 0
        ? analyzeSurge({
            curve,
            targetConcurrency: band.scaleOutConcurrency,
            queueLimit: qmax.q_max,
            surgeRatio: choices.surgeRatio,
            horizonS: tPlanS,
            warnAbove: choices.maxOverflowProbability ?? 0.05,
        })
        : null;
    const goodput = request.goodput ?? null;
    const lambdaMax = goodput?.lambda_max_rps ?? null;
    const openLoopTarget = lambdaMax !== null && lambdaMax > 0 ? concurrencyForThroughput(curve, lambdaMax) : null;
    // The operating point: one candidate per tracked metric, the seed's closed-loop rule beside them.
    const rule = choices.policyRule ?? 'surge-safe';
    const maxOverflow = choices.maxOverflowProbability ?? 0.05;
    const device = deriveDeviceProfile(qmax, request.qmaxFile).profile;
    const candidateCommon = {
        curve,
        queueLimit: Math.max(1, qmax.q_max),
        surgeRatio: choices.surgeRatio,
        maxOverflowProbability: maxOverflow,
        lambdaMaxRps: lambdaMax !== null && lambdaMax > 0 ? lambdaMax : null,
        sloMs: choices.sloMs,
        p95AtConcurrency: p95Curve(qmax),
        tTotalS,
        scaleInRatio: band.scaleOutConcurrency > 0 ? band.scaleInConcurrency / band.scaleOutConcurrency : 0,
        device: {
            lanes: device.lanes,
            serviceMeanS: device.service_mean_ms / 1000,
            serviceSigma: device.service_sigma,
        },
        measuredLevels: measuredLevels(goodput),
        peak: choices.peak,
        trough: choices.trough,
        instanceHourlyUsd: choices.instanceHourlyUsd,
    };
    const candidates = qmax.q_max > 0
        ? [
            policyCandidate({
                ...candidateCommon,
                metric: 'ConcurrentRequestsPerModel',
                policyLagS,
                policyLagOrigin,
            }),
            policyCandidate({
                ...candidateCommon,
                metric: 'InvocationsPerInstance',
                policyLagS: invocationsPolicyLagS(),
                policyLagOrigin: 'computed',
            }),
        ]
        : [];
    const seedTarget = ratio ? round(band.scaleOutConcurrency * ratio.ratio, 3) : null;
    const seedScaleIn = ratio && band.scaleInConcurrency > 0 ? round(band.scaleInConcurrency * ratio.ratio, 3) : null;
    const seedRule = surge
        ? {
            target_value: seedTarget,
            scale_in_threshold: seedScaleIn,
            c_scale_max: round(band.scaleOutConcurrency, 6),
            rate_rps: round(surge.baseRate, 6),
            throughput_share: round(Math.min(1, surge.utilization), 6),
            surge_overflow_probability: round(surge.surge.probability, 4),
            baseline_overflow_probability: round(surge.baseline.probability, 4),
            peak_instances: peakInstances,
            cost_per_hour_usd: choices.instanceHourlyUsd === null ? null : round(peakInstances * choices.instanceHourlyUsd, 2),
            holds: surge.surge.probability <= maxOverflow && surge.baseline.probability <= maxOverflow,
        }
        : null;
    const chosenCandidate = candidates.length > 0 ? chooseCandidate(candidates) : null;
    const policy = chosenCandidate && seedRule && surge
        ? {
            chosen_metric: chosenCandidate.metric,
            reason: policyReason(chosenCandidate, seedRule, surge.saturationConcurrency, maxOverflow, device.lanes),
            max_overflow_probability: maxOverflow,
            candidates,
            seed_rule: seedRule,
        }
        : null;
    // What is deployed: the chosen candidate (surge-safe), or the seed's rule when asked for.
    const deployed = rule === 'surge-safe' ? chosenCandidate : null;
    const deployedTPlanS = deployed ? deployed.t_plan_s : tPlanS;
    const deployedPeak = deployed ? deployed.peak_instances : peakInstances;
    const deployedTrough = deployed ? deployed.trough_instances : troughInstances;
    const deployedMin = Math.max(choices.minInstancesFloor, deployedTrough);
    const deployedMax = Math.max(deployedMin, deployedPeak);
    const fluidFromSafe = deployed
        ? fluidOverflowTime(curve, deployed.target.p50, Math.max(1, qmax.q_max), choices.surgeRatio * deployed.lambda_safe_rps, deployed.t_plan_s * 10)
        : null;
    // The deployed rate's surge probability with each uncertain input at its unfavourable bound.
    const tPlanUpperS = deployed && planned?.upper99S != null ? planned.upper99S + deployed.policy_lag_s : null;
    const sensitivity = deployed && deployed.lambda_safe_rps > 0
        ? surgeSensitivity({
            curve,
            qmax,
            surgeRatio: choices.surgeRatio,
            rateRps: deployed.lambda_safe_rps,
            tPlanS: deployed.t_plan_s,
            tPlanUpperS,
            tPlanUpperNote: tPlanUpperS === null
                ? ttotal
                    ? tTotalLowerBound
                        ? 'not available: T_total is only a lower bound'
                        : 'not available: single observation of T_total, no upper bound'
                    : 'not available: T_total stated, no upper bound'
                : `T_total at its upper ${SENSITIVITY_T_LEVEL * 100} % prediction bound ${planned?.upper99S} s + policy lag ${deployed.policy_lag_s} s`,
        })
        : null;
    const holds = validatedHolds(qmax, goodput);
    const sizedRateRps = deployed ? deployed.lambda_safe_rps : xTargetRps;
    const sizedRateLabel = deployed
        ? `lambda_safe ${deployed.lambda_safe_rps.toFixed(2)} requests/s (the surge-safe rate the policy holds each instance at, computed)`
        : null;
    const openLoop = openLoopHeadroom({
        model: request.modelName,
        goodput,
        goodputFile: request.goodputFile ?? null,
        xTargetRps: sizedRateRps,
        sizedRateLabel,
        scaleOutConcurrency: band.scaleOutConcurrency,
        curve,
        cwRatio: ratio?.ratio ?? null,
        peakRps: choices.peak.unit === 'rps' ? choices.peak.value : null,
        peakInstances: deployedPeak,
    });
    const serviceTimeAlarmMs = qmax.ttfab_p95_at_c1_ms ?? qmax.steps.find((s) => s.concurrency === 1 && s.usable)?.ttfab_p95_ms ?? null;
    const findings = evaluateFindings({
        model: request.modelName,
        qmax,
        sloMs: choices.sloMs,
        serviceP95S: qmax.s_p95_s,
        waitBudgetS: wMaxS,
        invocationCeilingS: choices.invocationCeilingS,
        cwRatio: ratio?.ratio ?? null,
        cwRatioRung: ratio?.concurrency ?? null,
        scaleOutConcurrency: band.scaleOutConcurrency,
        scaleInConcurrency: band.scaleInConcurrency,
        surgeRatio: choices.surgeRatio,
        tPlanS: deployedTPlanS,
        surge: surge ? { ...surge, peakRps: choices.peak.unit === 'rps' ? choices.peak.value : null } : null,
        minInstances: deployedMin,
        maxInstances: deployedMax,
        minSafeInstances: minSafe,
        peakInstances: deployedPeak,
        naivePeakInstances: naivePeak,
        xTargetRps: sizedRateRps,
        sizedRateLabel,
        instanceHourlyUsd: choices.instanceHourlyUsd,
        tTotalOrigin: ttotal ? 'measured' : 'stated',
        tTotalProvenance: planned?.provenance,
        tTotalS,
        tTotalLowerBound,
        dominantStage: ttotal?.dominant_stage ?? null,
        instanceQuota: choices.instanceQuota,
        ttfabP95AtC1Ms: serviceTimeAlarmMs,
        openLoop,
        policy: {
            rule,
            maxOverflowProbability: maxOverflow,
            chosen: chosenCandidate,
            seed: seedRule,
            candidates,
        },
    });
    const { verdict, warnCount } = planVerdict(findings);
    const region = regionOf(qmax, choices.legacyRegion);
    return {
        schema_version: SCHEMA_VERSION,
        kind: 'plan',
        model_name: request.modelName,
        run_id: request.runId,
        created_at: request.createdAt,
        verdict,
        warn_count: warnCount,
        fingerprint: { ...qmax.fingerprint, region: region.region },
        region_source: region.source,
        inputs: {
            qmax: inputOf(request.qmaxFile, qmax),
            ttotal: ttotal && request.ttotalFile ? inputOf(request.ttotalFile, ttotal) : null,
            t_total_stated_s: request.tTotalStatedS,
            config_mismatch_allowed: request.allowConfigMismatch,
            mismatch_warnings: mismatchWarnings,
            ...(drill && request.drillFile ? { drill: inputOf(request.drillFile, drill) } : {}),
            ...(goodput && request.goodputFile ? { goodput: inputOf(request.goodputFile, goodput) } : {}),
        },
        chosen: {
            slo_ms: choices.sloMs,
            surge_ratio: choices.surgeRatio,
            peak: choices.peak,
            trough: choices.trough,
            min_instances_floor: choices.minInstancesFloor,
            invocation_ceiling_s: choices.invocationCeilingS,
            instance_hourly_usd: choices.instanceHourlyUsd,
            instance_quota: choices.instanceQuota,
            legacy_region: region.source === REGION_FROM_CONFIG ? region.region : null,
            policy_rule: rule,
            max_overflow_probability: maxOverflow,
        },
        measured: {
            q_max: qmax.q_max,
            q_max_bracketed: qmax.q_max_bracketed,
            s_mean_s: qmax.s_mean_s,
            s_p95_s: qmax.s_p95_s,
            ttfab_p95_at_c1_ms: serviceTimeAlarmMs,
            t_total_s: tTotalS,
            t_total_origin: tTotalOrigin,
            policy_lag_s: deployed ? deployed.policy_lag_s : policyLagS,
            policy_lag_bounded: deployed ? deployed.policy_lag_origin === 'bound' : policyLagBounded,
            policy_lag_origin: deployed ? deployed.policy_lag_origin : policyLagOrigin,
            cw_ratio: ratio ? round(ratio.ratio, 6) : null,
            cw_ratio_rung: ratio?.concurrency ?? null,
            lambda_max_rps: lambdaMax,
            lambda_max_bracketed: goodput ? goodput.lambda_max_bracketed : null,
            ...(planned
                ? { t_total_provenance: planned.provenance, t_total_observations_s: planned.observations }
                : {}),
            ...(drillLag && (!deployed || deployed.policy_lag_origin === 'measured')
                ? { policy_lag_provenance: drillLag.provenance }
                : {}),
            q_max_provenance: qmaxProvenance(qmax),
            q_max_interval_decided: qmaxIntervalDecided(qmax),
            validated_hold: holds.validated,
            validated_hold_detail: holds.detail,
            ...(qmax.vantage ? { vantage: qmax.vantage } : {}),
        },
        derived: {
            t_plan_s: round(deployedTPlanS, 6),
            h: round(band.h, 6),
            c_scale_max: round(band.scaleOutConcurrency, 6),
            c_scale_min: round(band.scaleInConcurrency, 6),
            r: r === null ? null : round(r, 6),
            min_safe_instances: minSafe,
            w_max_s: round(wMaxS, 3),
            x_target_rps: round(xTargetRps, 6),
            peak_instances: deployedPeak,
            trough_instances: deployedTrough,
            naive_peak_instances: naivePeak,
            // The deployed policy's surge figures (the drill is judged against them).
            surge_overflow_probability: deployed
                ? deployed.surge_overflow_probability
                : surge
                    ? round(surge.surge.probability, 4)
                    : null,
            surge_fluid_overflow_s: deployed
                ? fluidFromSafe === null
                    ? null
                    : round(fluidFromSafe, 3)
                : surge?.fluidOverflowS == null
                    ? null
                    : round(surge.fluidOverflowS, 3),
            surge_baseline_overflow_probability: deployed
                ? deployed.baseline_overflow_probability
                : surge
                    ? round(surge.baseline.probability, 4)
                    : null,
            surge_method: surge ? (surge.exact ? 'uniformization' : 'uniformization-lower-bound') : null,
            // A surge-safe fleet starts from its stationary state, not from one in-flight count.
            surge_start_in_flight: deployed ? null : surge ? surge.start : null,
            open_loop_headroom: lambdaMax !== null && sizedRateRps > 0 ? round(lambdaMax / sizedRateRps - 1, 6) : null,
            open_loop_concurrency_target: openLoopTarget === null ? null : round(openLoopTarget, 3),
            lambda_safe_rps: deployed ? deployed.lambda_safe_rps : null,
            x_target_origin: curve.some((p) => Math.abs(p.concurrency - band.scaleOutConcurrency) < 1e-9)
                ? 'measured'
                : 'interpolated',
            surge_sensitivity: sensitivity,
        },
        deployable: {
            scaling_metric: deployed ? deployed.metric : 'ConcurrentRequestsPerModel',
            min_instances: rule === 'surge-safe' ? deployedMin : minInstances,
            max_instances: rule === 'surge-safe' ? deployedMax : maxInstances,
            scaling_target_value: deployed ? deployed.target_value : seedTarget,
            scale_in_threshold: deployed ? deployed.scale_in_threshold : seedScaleIn,
            queue_max_depth: Math.max(1, qmax.q_max),
            scale_out_cooldown_s: scaleOutCooldownS(deployedTPlanS),
            scale_in_cooldown_s: scaleInCooldownS(deployedTPlanS),
            slo_ms: choices.sloMs,
            service_time_alarm_ms: serviceTimeAlarmMs === null ? null : round(serviceTimeAlarmMs, 3),
        },
        policy,
        findings,
        provenance: { origin: 'measured', tool: request.tool, note: null },
        ...(drill
            ? {
                drill_comparison: {
                    drill_run_id: drill.run_id,
                    drilled_plan_run_id: drill.plan_run_id,
                    verdict: drill.verdict,
                    surge_ratio: drill.settings.surge_ratio,
                    policy_lag_predicted_s: replacedLagS,
                    policy_lag_predicted_origin: replacedLagOrigin,
                    policy_lag_observed_s: drilledLagS,
                    t_plan_predicted_s: round(planningHorizonS(tTotalS, replacedLagS), 6),
                    surge_overflow_predicted: drill.prediction.surge_overflow_probability,
                    surge_overflow_observed: drill.analysis.observed.surge_overflowed_within_t_plan,
                    overflows_observed: drill.analysis.observed.overflows.steady + drill.analysis.observed.overflows.surge,
                    broken_windows: drill.broken_windows.length,
                    slo_recovered_s: drill.analysis.slo_recovered_s,
                    slo_held: drill.slo_held ?? null,
                    as_predicted: drill.as_predicted ?? null,
                },
            }
            : {}),
    };
}

;// CONCATENATED MODULE: ./src/plan/plan-differences.ts
const shown = (value) => value === null ? 'null' : typeof value === 'object' ? JSON.stringify(value) : String(value);
/** Every value of the plan as written that its measurements do not give, `name written vs derived`. */
function planDifferences(written, derived) {
    const out = [];
    const note = (name, a, b) => {
        if (JSON.stringify(a) !== JSON.stringify(b))
            out.push(`${name} ${shown(a)} (plan) vs ${shown(b)} (re-derived)`);
    };
    for (const key of Object.keys(derived.deployable)) {
        note(key, written.deployable[key], derived.deployable[key]);
    }
    note('verdict', written.verdict, derived.verdict);
    note('region_source', written.region_source, derived.region_source);
    note('measured.t_total_origin', written.measured.t_total_origin, derived.measured.t_total_origin);
    note('warn_count', written.warn_count, derived.warn_count);
    for (const key of [
        'instance_type',
        'image_digest',
        'container_env',
        'region',
        'request',
    ]) {
        note(`fingerprint.${key}`, written.fingerprint[key], derived.fingerprint[key]);
    }
    return out;
}

;// CONCATENATED MODULE: ./src/plan/request-check.ts
/**
 * The gate's `request_shape` check: the body, Content-Type and Accept the measurement sent against
 * what the config sends. A container measured with another request shape (or one that reads
 * another) was not measured as production will call it. Pure.
 */

function requestShapeCheck(measured, configured, measure) {
    return sameRequestShape(measured, configured)
        ? { check: 'request_shape', ok: true, detail: requestShapeLabel(measured), fix: null }
        : {
            check: 'request_shape',
            ok: false,
            detail: `plan measured sending ${requestShapeLabel(measured)}, the config sends ${requestShapeLabel(configured)}`,
            fix: `set request in scalegate.config.json to what was measured, or ${measure} (with the config's request)`,
        };
}

;// CONCATENATED MODULE: ./src/plan/gate.ts
/**
 * The measured-plan gate: may this plan's scaling be deployed onto this model's image, instance
 * type and region? The same checks run at `cdk synth` (infra/) and in `scalegate gate` (what the
 * release workflow runs before `cdk deploy`). Pure: the caller reads the plan (or passes the read
 * error) and the measurements it names, and computes the digest of the image being deployed.
 *
 * The plan file is never trusted as written: the gate derives the plan again from the qmax and
 * ttotal artifacts it names (the derivation is deterministic, its simulation seeded) with the
 * plan's own recorded choices, refuses a plan whose values differ (naming each), and judges every
 * later check on the re-derived plan.
 *
 * A release also needs the plan proven where it was measured: a committed clean validate of that
 * very plan (same run id and fingerprint: its policy was deployed and read back equal), and, for a
 * model with `require_drill`, a drill of it whose SLO held (`slo_held`). A calibration deploy of the plan is what
 * produces those proofs, so it runs the gate without them (`proofs: null`).
 */







const GATE_CHECKS = (/* unused pure expression or super */ null && ([
    'plan_readable',
    'plan_model',
    'measurements',
    'rederived',
    'verdict',
    't_total_complete',
    'deployable_threshold',
    'instance_type',
    'image_digest',
    'container_env',
    'request_shape',
    'region',
    'validated',
    'drilled',
]));
/** How a lower-bound T_total is allowed through, per surface (for the refusal's fix). */
const ALLOW_LOWER_BOUND_HINT = (modelName) => `\`scalegate gate --allow-lower-bound\` (action input allow-lower-bound: true; at synth -c scalegate:allowLowerBound=${modelName})`;
const gate_short = (digest) => (digest.length > 16 ? `${digest.slice(0, 12)}…` : digest);
/** How a model gets a plan measured on exactly what is being deployed. */
function measureFix(modelName, model, deployImageDigest) {
    const slug = fingerprint_fingerprintSlug({ instance_type: model.instance_type, image_digest: deployImageDigest });
    const calibration = calibrationEndpointName(model.endpoint);
    const qmaxFile = `artifacts/qmax-${modelName}-response-stream-${slug}.json`;
    const ttotalFile = `artifacts/ttotal-${modelName}-force-desired-${slug}.json`;
    return (`measure this image on ${model.instance_type} in ${model.region}: run the calibrate workflow for ${modelName}, or by hand ` +
        `\`scalegate deploy ${modelName} --calibration\`, \`scalegate qmax --model ${modelName} --endpoint ${calibration} --out ${qmaxFile}\`, ` +
        `\`scalegate ttotal --model ${modelName} --endpoint ${calibration} --qmax ${qmaxFile} --out ${ttotalFile}\`, ` +
        `then \`scalegate plan --model ${modelName} --qmax ${qmaxFile} --ttotal ${ttotalFile}\` and commit artifacts/plan-${modelName}.json`);
}
/** The kinds of measurement a plan was made from, as a fix names them ("qmax/ttotal/drill"). */
function measuredKinds(plan) {
    const { ttotal, drill, goodput } = plan.inputs;
    return ['qmax', ttotal && 'ttotal', drill && 'drill', goodput && 'goodput'].filter(Boolean).join('/');
}
/** `scalegate plan` from the plan's own inputs (re-planning without re-measuring). */
function replanFix(modelName, plan) {
    const ttotal = plan.inputs.ttotal
        ? ` --ttotal ${plan.inputs.ttotal.file}`
        : plan.inputs.t_total_stated_s !== null
            ? ` --assume-t-total ${plan.inputs.t_total_stated_s}`
            : '';
    const drill = plan.inputs.drill ? ` --drill ${plan.inputs.drill.file}` : '';
    const goodput = plan.inputs.goodput ? ` --goodput ${plan.inputs.goodput.file}` : '';
    return `\`scalegate plan --model ${modelName} --qmax ${plan.inputs.qmax.file}${ttotal}${drill}${goodput}\``;
}
const pass = (check, detail) => ({ check, ok: true, detail, fix: null });
const fail = (check, detail, fix) => ({
    check,
    ok: false,
    detail,
    fix,
});
function evaluateGate(input) {
    const { modelName, model, plan, planFile, deployImageDigest, deployRegion } = input;
    const measure = measureFix(modelName, model, deployImageDigest);
    if (plan === null) {
        const why = input.planError ?? `${planFile}: no plan`;
        return {
            passed: false,
            checks: [fail('plan_readable', `no usable measured plan: ${why}`, measure)],
            rederived: null,
        };
    }
    const checks = [pass('plan_readable', `${planFile} (run ${plan.run_id}, ${plan.created_at})`)];
    checks.push(plan.model_name === modelName
        ? pass('plan_model', `plan is for ${modelName}`)
        : fail('plan_model', `${planFile} is a plan for ${plan.model_name}, not ${modelName}`, `point --plan at artifacts/plan-${modelName}.json, or ${measure}`));
    const again = rederive(modelName, plan, planFile, input.measurements);
    checks.push(...again.checks);
    // Every later check judges the plan as its measurements give it, never the file as written.
    const judged = again.plan ?? plan;
    if (judged.verdict === 'stop') {
        const stops = judged.findings.filter((f) => f.verdict === 'stop');
        const list = stops.map((f) => `${f.name}: ${f.detail}`).join('; ') || 'verdict stop';
        const fixes = stops
            .map((f) => f.fix)
            .filter((f) => Boolean(f))
            .join('; ');
        checks.push(fail('verdict', `plan verdict is stop (${list})`, `${fixes ? `${fixes}; then ` : ''}re-run ${replanFix(modelName, plan)} (or re-measure: ${measure})`));
    }
    else {
        checks.push(pass('verdict', judged.verdict === 'warn' ? `warn (${judged.warn_count} warnings)` : judged.verdict));
    }
    checks.push(tTotalComplete(modelName, judged, input.allowLowerBound === true));
    const d = judged.deployable;
    if (d.scaling_target_value === null || d.scale_in_threshold === null) {
        checks.push(fail('deployable_threshold', 'the plan has no CloudWatch threshold (scaling_target_value is null: no CloudWatch/client ratio R was measured, so the concurrency target cannot be stated in CloudWatch units)', `re-measure with the CloudWatch join (sagemaker transport, without --no-cloudwatch): ${measure}`));
    }
    else {
        checks.push(pass('deployable_threshold', `scale out at ${d.scaling_target_value}, scale in at ${d.scale_in_threshold} (${d.scaling_metric} ${d.scaling_metric === 'InvocationsPerInstance' ? 'Sum per 60 s' : 'Maximum'})`));
    }
    const fp = judged.fingerprint;
    checks.push(fp.instance_type === model.instance_type
        ? pass('instance_type', fp.instance_type)
        : fail('instance_type', `plan measured on ${fp.instance_type}, the config deploys ${model.instance_type}`, `set instance_type back to ${fp.instance_type} in scalegate.config.json, or ${measure}`));
    checks.push(fp.image_digest === deployImageDigest
        ? pass('image_digest', `measured image ${gate_short(fp.image_digest)} is the image being deployed`)
        : fail('image_digest', `plan measured on image ${gate_short(fp.image_digest)}, deploying image ${gate_short(deployImageDigest)}${model.container_dir ? ` (CDK asset hash of ${model.container_dir})` : ''}`, model.container_dir
            ? `the container changed since it was measured: ${measure}`
            : `pin image_uri to the measured digest (…@sha256:${fp.image_digest}), or ${measure}`));
    const want = configFingerprint(model, deployImageDigest, deployRegion);
    const wantEnv = JSON.stringify(want.container_env);
    const gotEnv = JSON.stringify(measuredEnvironment(fp.container_env));
    checks.push(wantEnv === gotEnv
        ? pass('container_env', `container environment ${gotEnv}`)
        : fail('container_env', `plan measured with container environment ${gotEnv}, the config deploys ${wantEnv}`, `restore container_env to ${gotEnv} in scalegate.config.json, or ${measure}`), requestShapeCheck(fp.request, want.request, measure));
    if (fp.region === null) {
        checks.push(fail('region', `the measurement did not record its region (a legacy artifact) and the plan took none from the config, so nothing says it was made in ${deployRegion}`, `re-plan (a plan of a legacy measurement takes the model config's region, labelled as such): ${replanFix(modelName, plan)}; or re-measure (current measurements record their region): ${measure}`));
    }
    else if (fp.region === fingerprint_LOCAL_REGION && deployRegion !== fingerprint_LOCAL_REGION) {
        checks.push(fail('region', `plan measured on the local SageMaker (region ${fingerprint_LOCAL_REGION}); a local measurement never sets scaling for a real region (${deployRegion})`, measure));
    }
    else if (fp.region !== deployRegion) {
        checks.push(fail('region', judged.region_source === REGION_FROM_CONFIG
            ? `plan's region ${fp.region} (${REGION_FROM_CONFIG}: the model config's when the plan was made), deploying to ${deployRegion}`
            : `plan measured in ${fp.region}, deploying to ${deployRegion}`, `set region back to ${fp.region} in scalegate.config.json, or ${measure}`));
    }
    else {
        checks.push(pass('region', judged.region_source === 'measured' ? fp.region : `${fp.region} (${judged.region_source})`));
    }
    if (input.proofs)
        checks.push(...proofChecks(input, plan, judged, input.proofs));
    return { passed: checks.every((c) => c.ok), checks, rederived: again.plan };
}
/** Fields on which a proof's recorded fingerprint differs from the plan's (region compared exactly). */
function fingerprintMismatch(plan, recorded) {
    const fields = fingerprintDifferences(plan, recorded).map((d) => d.field);
    if (plan.region !== recorded.region && !fields.includes('region'))
        fields.push('region');
    return fields;
}
/** How a plan gets its validate: its policy deployed on the calibration endpoint and read back. */
function validateFix(modelName, model, planFile) {
    const calibration = calibrationEndpointName(model.endpoint);
    return (`deploy this plan's policy to the calibration endpoint and validate it there: run the calibrate workflow for ${modelName}, or by hand ` +
        `\`scalegate deploy ${modelName} --calibration --with-plan ${planFile}\`, ` +
        `\`scalegate validate --model ${modelName} --endpoint ${calibration} --plan ${planFile}\`, ` +
        `then commit artifacts/${validateFileName(modelName)}`);
}
/** How a plan gets a drill: a surge through its deployed policy on the calibration endpoint. */
function drillFix(modelName, model, planFile, fp) {
    const calibration = calibrationEndpointName(model.endpoint);
    return (`drill this plan's policy on the calibration endpoint: run the calibrate workflow for ${modelName} with the drill on, or by hand ` +
        `\`scalegate deploy ${modelName} --calibration --with-plan ${planFile}\`, ` +
        `\`scalegate drill --model ${modelName} --plan ${planFile} --endpoint ${calibration}\`, ` +
        `then commit artifacts/${drillFileName(modelName, fp)}`);
}
function proofChecks(input, plan, judged, proofs) {
    const { modelName, model, planFile } = input;
    const fp = judged.fingerprint;
    const checks = [];
    const v = proofs.validate;
    const vFix = validateFix(modelName, model, planFile);
    if (v === null) {
        checks.push(fail('validated', `no validate of this plan is committed (${proofs.validateError ?? proofs.validateFile})`, vFix));
    }
    else if (v.model_name !== modelName) {
        checks.push(fail('validated', `${proofs.validateFile} validated ${v.model_name}, not ${modelName}`, vFix));
    }
    else if (v.plan.run_id !== plan.run_id) {
        checks.push(fail('validated', `${proofs.validateFile} validated plan run ${v.plan.run_id}, not this plan (run ${plan.run_id}): the policy deployed and read back was another plan's`, vFix));
    }
    else if (!v.plan.fingerprint) {
        checks.push(fail('validated', `${proofs.validateFile} does not record the fingerprint of the plan it validated (written by an older scalegate)`, vFix));
    }
    else if (fingerprintMismatch(fp, v.plan.fingerprint).length > 0) {
        checks.push(fail('validated', `${proofs.validateFile} validated a plan of another fingerprint (${fingerprintMismatch(fp, v.plan.fingerprint).join(', ')} differ)`, vFix));
    }
    else if (v.verdict !== 'clean') {
        const differing = v.rows
            .filter((r) => r.verdict !== 'match' && r.verdict !== 'warn')
            .map((r) => r.parameter);
        checks.push(fail('validated', `${proofs.validateFile}: the deployed policy did not equal this plan on ${v.endpoint} (${differing.join(', ') || 'mismatch'})`, `fix the deployment, then ${vFix}`));
    }
    else {
        checks.push(pass('validated', `${proofs.validateFile}: clean on ${v.endpoint} (${v.region}) at ${v.checked_at}, plan run ${v.plan.run_id}`));
    }
    const dFix = drillFix(modelName, model, planFile, fp);
    if (!model.require_drill) {
        checks.push(pass('drilled', `not required for ${modelName} (require_drill is not set)`));
        return checks;
    }
    const matching = proofs.drills.filter(({ drill }) => drill.model_name === modelName &&
        drill.plan_run_id === plan.run_id &&
        fingerprintMismatch(fp, drill.fingerprint).length === 0);
    const proving = matching.filter(({ drill }) => !drill.policy.mismatch_allowed);
    // Proof is a drill that recorded the SLO holding; the verdict alone is not (older drills passed
    // what the plan predicted, breaches included).
    const passed = proving.find(({ drill }) => drill.slo_held === true);
    const sloBroken = proving.filter(({ drill }) => drill.slo_held === false);
    if (passed) {
        checks.push(pass('drilled', `${passed.file}: passed on ${passed.drill.endpoint} at ${passed.drill.measured_at}, plan run ${plan.run_id}: the SLO held in all ${passed.drill.slo?.windows_judged ?? 'its'} full steady and surge windows (slo_held)`));
    }
    else if (sloBroken.length > 0) {
        const last = sloBroken[0];
        const slo = last.drill.slo;
        const where = slo
            ? ` in ${slo.broken_windows.length} of ${slo.windows_judged} full steady and surge windows (steady ${slo.broken_by_phase.steady}, surge ${slo.broken_by_phase.surge})`
            : '';
        const predicted = last.drill.as_predicted
            ? ', as the plan predicted: a plan that predicts a breach is not proven by it'
            : '';
        checks.push(fail('drilled', `${last.file}: the drill of this plan broke the SLO${where}${predicted}; require_drill needs a drill whose SLO held (slo_held true)`, `see the windows outside the SLO in ${last.file}; re-plan (or re-measure) so that the policy holds the SLO, then ${dFix}`));
    }
    else if (proving.length > 0) {
        const last = proving[0];
        checks.push(fail('drilled', `${last.file}: recorded by an older scalegate that did not judge whether the SLO held (no slo_held; its verdict ${last.drill.verdict} only compared the windows with what the plan predicted), so it is not proof the SLO held; require_drill needs a drill whose SLO held`, `drill again with this scalegate: ${dFix}`));
    }
    else if (matching.length > 0) {
        checks.push(fail('drilled', `${matching[0].file} drilled with --allow-policy-mismatch (whatever policy was deployed, not proof of this plan's)`, dFix));
    }
    else {
        const other = proofs.drills.length > 0
            ? ` (${proofs.drills.map((d) => d.file).join(', ')}: another fingerprint)`
            : '';
        const unreadable = proofs.drillErrors.length > 0 ? `; unreadable: ${proofs.drillErrors.join('; ')}` : '';
        checks.push(fail('drilled', `require_drill is set and no drill of this plan (run ${plan.run_id}) is committed${other}${unreadable}`, dFix));
    }
    return checks;
}
/**
 * A plan built on a lower-bound T_total (the ttotal's probe never recovered) sizes its cooldowns
 * and surge horizon on a figure that can only be too short: refused unless explicitly allowed,
 * and said either way.
 */
function tTotalComplete(modelName, plan, allowed) {
    const m = plan.measured;
    if (m.t_total_origin !== 'lower-bound') {
        return pass('t_total_complete', `T_total ${m.t_total_s} s (${m.t_total_origin})`);
    }
    const what = `T_total ${m.t_total_s} s is a LOWER BOUND (the ttotal run ${plan.inputs.ttotal?.run_id ?? '?'} never saw traffic recover; the clock stopped at in_service): the cooldowns and the surge probability derived from it can only be too low`;
    if (allowed)
        return pass('t_total_complete', `${what}; deployed anyway: a lower bound was explicitly allowed`);
    return fail('t_total_complete', what, `measure T_total to the end: ${remeasure('ttotal', modelName, ` --qmax ${plan.inputs.qmax.file}`)} (a longer --max-wait-s if it was still recovering), then ${replanFix(modelName, plan).replace(/ --ttotal \S+/, ' --ttotal <new ttotal artifact>')}; or deploy the lower bound knowingly with ${ALLOW_LOWER_BOUND_HINT(modelName)}`);
}
function rederive(modelName, plan, planFile, measurements) {
    const replan = replanFix(modelName, plan);
    if (measurements === null || measurements.error !== null || measurements.qmax === null) {
        const why = measurements?.error ?? 'the measurements it names were not looked for';
        return {
            plan: null,
            checks: [
                fail('measurements', `${why}: the gate derives the plan again from its own measurements and refuses without them`, `commit the ${measuredKinds(plan)} artifacts the plan was made from beside it, or re-plan from the ones you have: ${replan}`),
            ],
        };
    }
    const found = [
        measurements.qmaxFile,
        measurements.ttotalFile,
        measurements.drillFile,
        measurements.goodputFile,
    ]
        .filter(Boolean)
        .join(' and ');
    const checks = [pass('measurements', found)];
    let derived;
    try {
        derived = derivePlan({
            modelName: plan.model_name,
            qmax: measurements.qmax,
            qmaxFile: plan.inputs.qmax.file,
            ttotal: measurements.ttotal,
            ttotalFile: plan.inputs.ttotal?.file ?? null,
            tTotalStatedS: plan.inputs.t_total_stated_s,
            drill: measurements.drill ?? null,
            drillFile: plan.inputs.drill?.file ?? null,
            // The goodput measurement is an input too: open_loop_headroom counts in the verdict.
            goodput: measurements.goodput ?? null,
            goodputFile: plan.inputs.goodput?.file ?? null,
            choices: {
                sloMs: plan.chosen.slo_ms,
                surgeRatio: plan.chosen.surge_ratio,
                peak: plan.chosen.peak,
                trough: plan.chosen.trough,
                minInstancesFloor: plan.chosen.min_instances_floor,
                invocationCeilingS: plan.chosen.invocation_ceiling_s,
                instanceHourlyUsd: plan.chosen.instance_hourly_usd,
                instanceQuota: plan.chosen.instance_quota,
                // The region the plan took for a legacy measurement when it was made, never today's config.
                legacyRegion: plan.chosen.legacy_region,
                policyRule: plan.chosen.policy_rule,
                maxOverflowProbability: plan.chosen.max_overflow_probability,
            },
            allowConfigMismatch: plan.inputs.config_mismatch_allowed,
            runId: plan.run_id,
            createdAt: plan.created_at,
            tool: plan.provenance.tool,
        });
    }
    catch (e) {
        if (!isUsageError(e))
            throw e;
        checks.push(fail('rederived', `${planFile} does not follow from its own inputs: ${e.message}`, `re-plan: ${replan}`));
        return { plan: null, checks };
    }
    const differences = planDifferences(plan, derived);
    checks.push(differences.length === 0
        ? pass('rederived', `every deployable value follows from ${found} and the plan's recorded choices`)
        : fail('rederived', `${planFile} does not follow from its own measurements: ${differences.join('; ')}`, `a plan is never edited by hand: re-derive it with ${replan}`));
    return { plan: derived, checks };
}
/** One block naming every failed check and its fix: the text synth fails with. */
function gateFailureMessage(modelName, planFile, result) {
    const failed = result.checks.filter((c) => !c.ok);
    const lines = [
        `scalegate gate refused ${modelName}: no scaling policy is deployed that was not measured on this image and instance type (plan ${planFile}).`,
    ];
    for (const c of failed) {
        lines.push(`  ✗ ${c.check}: ${c.detail}`);
        if (c.fix)
            lines.push(`    fix: ${c.fix}`);
    }
    return lines.join('\n');
}

;// CONCATENATED MODULE: ./infra/lib/synth-gate.ts
/**
 * The measured-plan gate at synth: read `artifacts/plan-<model>.json` and the qmax/ttotal
 * artifacts it names through the artifact module, run the same `evaluateGate` as `scalegate
 * gate` (which derives the plan again from those measurements), and refuse (throw) with every
 * failed check and its fix. Never looks for "some plan": the file name is fixed by the model name.
 * What is deployed is the re-derived plan, never the file's numbers. A production deploy also
 * needs the plan's proofs beside it (its clean validate; a passing drill with require_drill); the
 * calibration deploy of a plan (`--with-plan`), which produces them, is gated without.
 */



/** Synth stops with this; bin/app.ts prints its message without a stack trace. */
class GateRefusedError extends Error {
    modelName;
    result;
    constructor(message, modelName, result) {
        super(message);
        this.modelName = modelName;
        this.result = result;
        this.name = 'GateRefusedError';
    }
}
function runSynthGate(input) {
    const planFile = input.planFile ?? (0,external_node_path_namespaceObject.join)(input.artifactsDir, planFileName(input.modelName));
    let plan = null;
    let planError = null;
    try {
        plan = readArtifact('plan', planFile);
    }
    catch (e) {
        if (!isUsageError(e))
            throw e;
        planError = e.message;
    }
    const result = evaluateGate({
        modelName: input.modelName,
        model: input.model,
        planFile,
        plan,
        planError,
        measurements: plan ? findPlanMeasurements(plan, input.artifactsDir) : null,
        deployImageDigest: input.deployImageDigest,
        deployRegion: input.deployRegion,
        proofs: plan && input.requireProofs ? findPlanProofs(plan, input.artifactsDir) : null,
        allowLowerBound: input.allowLowerBound === true,
    });
    return {
        planFile,
        plan: result.passed ? result.rederived : null,
        result,
        message: result.passed ? null : gateFailureMessage(input.modelName, planFile, result),
    };
}

;// CONCATENATED MODULE: ./infra/lib/scalegate-scaling.ts
/**
 * `scalegate/cdk`: the measured-plan gate and the scaling of a plan, for a team's own CDK app.
 * Built into dist/cdk.mjs (aws-cdk-lib and constructs stay external: the app's own copies are
 * used) with its declarations in dist/cdk.d.ts; see docs/cdk.md.
 *
 * `new ScalegateScaling(stack, id, { model })` reads `scalegate.config.json` and
 * `artifacts/plan-<model>.json` (relative to the working directory, where `cdk synth` runs),
 * runs the same gate as `scalegate gate` (the plan re-derived from its own measurements, its
 * fingerprint against the image being deployed, the region, its validate and drill proofs) and
 * throws when it refuses, so the synth fails naming each failed check and its fix. When it
 * passes, it adds the scalable target, the target-tracking scale-out policy, the step scale-in
 * policy with its alarm and (unless turned off) the alarms and dashboard, every number from the
 * plan through `expectedPolicyShape`, exactly what `scalegate validate` later compares with.
 * The model's container must get `containerEnvironment` (MAX_QUEUE_DEPTH = the plan's queue
 * depth).
 *
 * The public types here name only aws-cdk-lib, constructs and plain values, so the emitted
 * declarations stand alone.
 */









class ScalegateScaling extends external_constructs_namespaceObject.Construct {
    /** The plan file the gate read. */
    planFile;
    deployable;
    /** What the model's container environment must hold (MAX_QUEUE_DEPTH). */
    containerEnvironment;
    scalableTarget;
    scaleOutPolicy;
    scaleInPolicy;
    scaleInAlarm;
    /** Empty with `observability: false`. */
    alarms;
    endpointDependencies = new external_constructs_namespaceObject.DependencyGroup();
    endpointGiven = false;
    constructor(scope, id, props) {
        super(scope, id);
        const configFile = (0,external_node_path_namespaceObject.resolve)(props.configFile ?? config_CONFIG_FILE);
        const artifactsDir = (0,external_node_path_namespaceObject.resolve)(props.artifactsDir ?? DEFAULT_ARTIFACTS_DIR);
        const [modelName, model] = modelFromConfig(readConfigFile(configFile), props.model, configFile);
        const stack = external_aws_cdk_lib_namespaceObject.Stack.of(this);
        const region = props.region ?? stack.region;
        if (external_aws_cdk_lib_namespaceObject.Token.isUnresolved(region)) {
            throw new errors_UsageError(`ScalegateScaling ${modelName}: the stack's region is not known at synth (an environment-agnostic stack); give the stack an env with a region, or pass \`region\`: the plan is checked against the region it was measured in.`);
        }
        const imageDigest = props.imageDigest ?? modelImageDigest(model, configFile);
        const gate = runSynthGate({
            modelName,
            model,
            artifactsDir,
            deployImageDigest: imageDigest,
            deployRegion: region,
            requireProofs: props.requireProofs !== false,
            allowLowerBound: props.allowLowerBound === true,
        });
        this.planFile = gate.planFile;
        if (!gate.plan) {
            throw new GateRefusedError(gate.message ?? `${modelName}: refused`, modelName, gate.result);
        }
        const plan = gate.plan;
        const target = {
            modelName,
            endpoint: props.endpointName ?? model.endpoint,
            variant: props.variant ?? model.variant,
        };
        const shape = expectedPolicyShape(target, plan);
        this.containerEnvironment = { ...shape.container.environment };
        this.deployable = {
            scalingMetric: shape.scalingMetric,
            predefinedMetricType: shape.scaleOut.predefinedMetricType,
            targetValue: shape.scaleOut.targetValue,
            scaleInThreshold: shape.scaleIn.alarm.threshold,
            minCapacity: shape.scalableTarget.minCapacity,
            maxCapacity: shape.scalableTarget.maxCapacity,
            scaleOutCooldownS: shape.scaleOut.scaleOutCooldownS,
            scaleInCooldownS: shape.scaleIn.cooldownS,
            queueMaxDepth: plan.deployable.queue_max_depth,
            planRunId: plan.run_id,
            imageDigest: plan.fingerprint.image_digest,
        };
        if (props.endpoint)
            this.dependOn(props.endpoint);
        const scaling = new EndpointAutoscaling(this, 'Autoscaling', {
            target,
            plan,
            endpoint: this.endpointDependencies,
        });
        this.scalableTarget = scaling.scalableTarget;
        this.scaleOutPolicy = scaling.scaleOutPolicy;
        this.scaleInPolicy = scaling.scaleInPolicy;
        this.scaleInAlarm = scaling.scaleInAlarm;
        this.alarms =
            props.observability === false
                ? []
                : new EndpointObservability(this, 'Observability', { shape: scaling.shape, region }).alarms;
        this.node.addValidation({
            validate: () => this.endpointGiven
                ? []
                : [
                    `ScalegateScaling ${modelName}: the scalable target must be registered after the endpoint exists: pass \`endpoint\` or call \`dependOn(endpoint)\`.`,
                ],
        });
    }
    /** Registers the scalable target only after `endpoint` (the CfnEndpoint) is created. */
    dependOn(endpoint) {
        this.endpointDependencies.add(endpoint);
        this.endpointGiven = true;
    }
}
/** Whether an error is a refusal to report without a stack trace (the gate's, or a config mistake). */
function isScalegateRefusal(e) {
    return e instanceof GateRefusedError || isUsageError(e);
}

var __webpack_exports__ScalegateScaling = __webpack_exports__.n;
var __webpack_exports__isScalegateRefusal = __webpack_exports__.Y;
export { __webpack_exports__ScalegateScaling as ScalegateScaling, __webpack_exports__isScalegateRefusal as isScalegateRefusal };

// electron-builder afterPack hook: flips Electron's fuses on the packaged binary, so the
// shipped app cannot be turned into a Node runtime (RunAsNode, NODE_OPTIONS, --inspect), loads
// its code only from the (integrity-checked) asar, encrypts cookies at rest, and gives file://
// no extra privileges (the app is served from app://). `fuseConfig()` is what the test reads.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- electron-builder loads CommonJS config and hooks */
const { join } = require('node:path');

/** The fuses Tern sets, by name (the names of @electron/fuses' FuseV1Options). */
const FUSES = Object.freeze({
  RunAsNode: false,
  EnableCookieEncryption: true,
  EnableNodeOptionsEnvironmentVariable: false,
  EnableNodeCliInspectArguments: false,
  EnableEmbeddedAsarIntegrityValidation: true,
  OnlyLoadAppFromAsar: true,
  GrantFileProtocolExtraPrivileges: false,
});

/** The config for @electron/fuses' flipFuses, given its FuseVersion and FuseV1Options enums. */
function fuseConfig({ FuseVersion, FuseV1Options }, platform) {
  const config = { version: FuseVersion.V1, resetAdHocDarwinSignature: platform === 'darwin' };
  for (const [name, value] of Object.entries(FUSES)) {
    if (!(name in FuseV1Options)) throw new Error(`@electron/fuses knows no fuse ${name}`);
    config[FuseV1Options[name]] = value;
  }
  return config;
}

/** Where the Electron binary is in electron-builder's output for each platform. */
function executablePath(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  const name = packager.appInfo.productFilename;
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas') return join(appOutDir, `${name}.app`);
  if (electronPlatformName === 'win32') return join(appOutDir, `${name}.exe`);
  return join(appOutDir, packager.executableName);
}

async function afterPack(context) {
  // @electron/fuses is ESM-only.
  const fuses = await import('@electron/fuses');
  await fuses.flipFuses(executablePath(context), fuseConfig(fuses, context.electronPlatformName));
}

module.exports = afterPack;
module.exports.default = afterPack;
module.exports.FUSES = FUSES;
module.exports.fuseConfig = fuseConfig;
module.exports.executablePath = executablePath;

// The pattern layer's API speaks JSON values (AHAP export, PatternLimits.json,
// reading an already parsed document), so importing Haptics brings the JSON
// module with it.
@_exported import JSON

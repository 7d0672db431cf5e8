/* libyaml from Debian's libyaml-dev (pkg-config yaml-0.1): its event parser, which
 * HIL's YAMLComposer turns into documents under limits (Sources/HIL/YAMLComposer.swift). */
#include <yaml.h>

// SPDX-License-Identifier: LGPL-2.1-or-later
// The GType of the IbnmError enum (IBNM_TYPE_ERROR), registered by
// libibnm.so alone; the error domain is in ibnm-error-quark.cpp, which the
// modules compile too.
#include "config.h"

#include "libcore/ibnm-error.h"

G_DEFINE_ENUM_TYPE(IbnmError, ibnm_error,
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_FAILED, "failed"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_INVALID_ARGUMENT, "invalid-argument"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_INVALID_PROPERTY, "invalid-property"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_MISSING_PROPERTY, "missing-property"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_NOT_FOUND, "not-found"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_EXISTS, "exists"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_NOT_SUPPORTED, "not-supported"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_PERMISSION_DENIED, "permission-denied"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_IO, "io"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_PARSE, "parse"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_PLATFORM, "platform"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_INVALID_VALUE, "invalid-value"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_TIMED_OUT, "timed-out"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_NOT_RUNNING, "not-running"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_ACTIVATION_FAILED, "activation-failed"),
                   G_DEFINE_ENUM_VALUE(IBNM_ERROR_NOT_ACTIVE, "not-active"))

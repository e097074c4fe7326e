/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * IBNM_ERROR:
 *
 * The GError domain of every error libibnm reports. Messages carry their
 * context first, NetworkManager style: `infiniband.p-key: ...` for a property,
 * `/sys/class/infiniband/mlx4_0/node_guid: ...` for a file.
 *
 * Since: 0.1
 */
#define IBNM_ERROR (ibnm_error_quark())
GQuark ibnm_error_quark(void);

/**
 * IbnmError:
 * @IBNM_ERROR_FAILED: unspecified failure
 * @IBNM_ERROR_INVALID_ARGUMENT: a caller passed an argument that is not valid;
 *   for the nmcli argument grammar, a word that names no setting, property or
 *   key, a word without its value, or no `type`
 * @IBNM_ERROR_INVALID_PROPERTY: the profile does not verify: a property's
 *   value, which parsed, is not valid in the profile (NetworkManager's
 *   verify() or ibnm's key table refuses it)
 * @IBNM_ERROR_MISSING_PROPERTY: a required profile property is missing
 * @IBNM_ERROR_NOT_FOUND: a device, link, profile or file does not exist
 * @IBNM_ERROR_EXISTS: the object to create exists already
 * @IBNM_ERROR_NOT_SUPPORTED: the device or kernel cannot do what was asked
 * @IBNM_ERROR_PERMISSION_DENIED: the caller lacks the privilege
 * @IBNM_ERROR_IO: reading or writing a file failed
 * @IBNM_ERROR_PARSE: a file or a kernel message could not be parsed
 * @IBNM_ERROR_PLATFORM: the kernel refused an operation
 * @IBNM_ERROR_INVALID_VALUE: a value given for a property does not parse as
 *   the property's type or is not one of its words (`mtu abc`,
 *   `transport-mode junk`, `p-key 0x10000`): refused as it is set, before
 *   the profile is verified, as nmcli refuses it (its exit status 2, where a
 *   profile that does not verify is 1)
 * @IBNM_ERROR_TIMED_OUT: the host's deadline (ibnm_host_set_deadline())
 *   passed before a change; what the apply had done is undone; or
 *   NetworkManager did not finish an activation or deactivation in the time
 *   given (ibnm_settings_activate()); or a wait of an RDMA test ran out of
 *   its #IbnmRdmaTest:timeout
 * @IBNM_ERROR_NOT_RUNNING: NetworkManager is not running (it stopped after
 *   the profile store was opened); nmcli's exit status 8
 * @IBNM_ERROR_ACTIVATION_FAILED: NetworkManager refused or failed the
 *   activation of a profile; the message is NetworkManager's reason, as
 *   nmcli prints it; nmcli's exit status 4
 * @IBNM_ERROR_NOT_ACTIVE: ibnm_apply_down() of a profile that is not active
 *   (NetworkManager's "is not an active connection"); nothing was changed
 *
 * The codes of the #IBNM_ERROR domain.
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_ERROR_FAILED,
    IBNM_ERROR_INVALID_ARGUMENT,
    IBNM_ERROR_INVALID_PROPERTY,
    IBNM_ERROR_MISSING_PROPERTY,
    IBNM_ERROR_NOT_FOUND,
    IBNM_ERROR_EXISTS,
    IBNM_ERROR_NOT_SUPPORTED,
    IBNM_ERROR_PERMISSION_DENIED,
    IBNM_ERROR_IO,
    IBNM_ERROR_PARSE,
    IBNM_ERROR_PLATFORM,
    IBNM_ERROR_INVALID_VALUE,
    IBNM_ERROR_TIMED_OUT,
    IBNM_ERROR_NOT_RUNNING,
    IBNM_ERROR_ACTIVATION_FAILED,
    IBNM_ERROR_NOT_ACTIVE,
} IbnmError;

#define IBNM_TYPE_ERROR (ibnm_error_get_type())
GType ibnm_error_get_type(void);

G_END_DECLS

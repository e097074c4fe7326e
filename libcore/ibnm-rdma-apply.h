/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Typed RDMA changes: a soft RDMA link, the RDMA-CM default RoCE mode, the
 * traffic class and its rules, roce_enable. Each runs as one transaction
 * through the same planner, engine, rollback and report as ibnm_apply_up(),
 * without a profile. */
#pragma once

#include <glib-object.h>

#include "ibnm-apply.h"
#include "ibnm-host.h"

G_BEGIN_DECLS

/**
 * IbnmSoftLinkType:
 * @IBNM_SOFT_LINK_TYPE_RXE: rxe (Soft-RoCE): RoCE v2 over an Ethernet netdev
 * @IBNM_SOFT_LINK_TYPE_SIW: siw (Soft-iWARP): iWARP over an Ethernet netdev
 *
 * The kind of a soft RDMA link (`rdma link add NAME type rxe|siw`), as the
 * profile key rdma.link-type names it.
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_SOFT_LINK_TYPE_RXE,
    IBNM_SOFT_LINK_TYPE_SIW,
} IbnmSoftLinkType;

#define IBNM_TYPE_SOFT_LINK_TYPE (ibnm_soft_link_type_get_type())
GType ibnm_soft_link_type_get_type(void);

/**
 * IbnmRoceMode:
 * @IBNM_ROCE_MODE_V1: RoCE v1 (configfs "IB/RoCE v1")
 * @IBNM_ROCE_MODE_V2: RoCE v2 (configfs "RoCE v2")
 *
 * A RoCE version, as the RDMA-CM default_roce_mode and the profile key
 * rdma.roce-mode take it.
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_ROCE_MODE_V1,
    IBNM_ROCE_MODE_V2,
} IbnmRoceMode;

#define IBNM_TYPE_ROCE_MODE (ibnm_roce_mode_get_type())
GType ibnm_roce_mode_get_type(void);

gboolean ibnm_soft_link_type_from_string(const char *text, IbnmSoftLinkType *type);
gboolean ibnm_roce_mode_from_string(const char *text, IbnmRoceMode *mode);
gint ibnm_traffic_class_from_string(const char *text);

IbnmApplyReport *ibnm_apply_rdma_link_add(IbnmHost *host,
                                  const char *name,
                                  IbnmSoftLinkType type,
                                  const char *netdev,
                                  IbnmApplyFlags flags);
IbnmApplyReport *ibnm_apply_rdma_link_delete(IbnmHost *host,
                                     const char *name,
                                     IbnmApplyFlags flags);
IbnmApplyReport *ibnm_apply_roce_mode(IbnmHost *host,
                              const char *device,
                              guint port,
                              IbnmRoceMode mode,
                              IbnmApplyFlags flags);
IbnmApplyReport *ibnm_apply_traffic_class(IbnmHost *host,
                                  const char *device,
                                  guint port,
                                  gint tclass,
                                  const char *const *rules,
                                  IbnmApplyFlags flags);
IbnmApplyReport *ibnm_apply_traffic_class_disable(IbnmHost *host,
                                          const char *device,
                                          guint port,
                                          IbnmApplyFlags flags);
IbnmApplyReport *ibnm_apply_ttl(IbnmHost *host,
                        const char *device,
                        guint port,
                        guint ttl,
                        IbnmApplyFlags flags);
IbnmApplyReport *ibnm_apply_roce_enable(IbnmHost *host,
                                const char *device,
                                gboolean enabled,
                                IbnmApplyFlags flags);

G_END_DECLS

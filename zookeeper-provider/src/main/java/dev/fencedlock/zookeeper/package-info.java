/**
 * The {@code zookeeper} backend: locks through Curator's {@code InterProcessMutex} recipe, with
 * the lock node's creating transaction id ({@code czxid}) as the fencing token, and every
 * connection interruption treated as the loss of every lease.
 *
 * <p>Select it with {@code fencedlock.backend=zookeeper} and {@code fencedlock.zookeeper.connect},
 * or build a client on an existing {@code CuratorFramework} with {@link
 * dev.fencedlock.zookeeper.ZooKeeperLocks}. Everything else in this package is internal.
 */
package dev.fencedlock.zookeeper;

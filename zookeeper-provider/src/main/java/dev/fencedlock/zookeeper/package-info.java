/**
 * The {@code zookeeper} backend: locks through ZooKeeper's lock recipe (as Curator's {@code
 * InterProcessMutex} runs it, with every request bounded by the caller's wait plus one operation
 * timeout), fencing tokens in the one token order recorded on a token node per lock name (deleted
 * when unused), and every connection interruption treated as the loss of every lease.
 *
 * <p>Select it with {@code fencedlock.backend=zookeeper} and {@code fencedlock.zookeeper.connect},
 * or build a client on an existing {@code CuratorFramework} with {@link
 * dev.fencedlock.zookeeper.ZooKeeperLocks}. Everything else in this package is internal.
 */
package dev.fencedlock.zookeeper;

/**
 * The {@code redlock} backend: Redlock over N independent Redis masters, with a fencing token on
 * every lease (node counters installed on a quorum, with a wall-clock floor that survives nodes
 * restarting empty) and a restart quarantine enforced by the client.
 *
 * <p>Select it with {@code fencedlock.backend=redlock} and {@code fencedlock.redlock.nodes}; see
 * {@link dev.fencedlock.redlock.RedlockLocks} for the steps and the entry points, {@link
 * dev.fencedlock.redlock.RedlockSettings} for the settings, and {@link
 * dev.fencedlock.redlock.RedlockKeys} for what is stored on the nodes. The algorithm, its token
 * argument and the assumptions it rests on are documented on {@code
 * dev.fencedlock.redlock.internal.RedlockLock}; everything in {@code internal} is not API.
 */
package dev.fencedlock.redlock;

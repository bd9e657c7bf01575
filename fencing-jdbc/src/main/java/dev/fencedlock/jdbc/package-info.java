/**
 * Fencing for plain JDBC: the fence row that orders the transactions of one lock name in token
 * order and refuses a stale holder.
 *
 * <p>{@link dev.fencedlock.jdbc.JdbcFencing#inTransaction} runs a transaction under a lease; {@link
 * dev.fencedlock.jdbc.FenceGuard} is the guard itself for integrations that own the transaction
 * (JPA, Spring). The table is created by the Flyway migration at {@code
 * classpath:db/fencedlock/migration}. See {@code docs/fencing.md} for the guarantee and its
 * assumptions.
 */
package dev.fencedlock.jdbc;

/**
 * Fencing for plain JDBC: the fence row that orders the transactions of one lock name in token
 * order and refuses a stale holder.
 *
 * <p>{@link dev.fencedlock.jdbc.JdbcFencing#inTransaction} runs a transaction under a lease; a
 * refused one throws the core {@link dev.fencedlock.FenceRefusedException}. {@link
 * dev.fencedlock.jdbc.FencedTables} makes the database refuse writes to chosen tables outside a
 * fenced transaction; {@link dev.fencedlock.jdbc.FenceTable} names another fence table. The table is
 * created by the Flyway migration at {@code
 * classpath:db/fencedlock/migration}. See {@code docs/fencing.md} for the guarantee and its
 * assumptions.
 */
package dev.fencedlock.jdbc;

package dev.fencedlock.jpa;

/**
 * Persistence-unit properties of fenced writes (set them like any Hibernate property, for example
 * in {@code persistence.xml} or {@code HibernatePersistenceConfiguration.property}). Values may be
 * strings or, for the switch, a {@link Boolean}. A bad value fails the start of the {@code
 * EntityManagerFactory} with an {@link IllegalArgumentException} naming the key and the value.
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@value #LOCK_FENCE}</td><td>{@code true} to keep one fence row per lock and
 *       advance it in every transaction that writes fenced entities</td><td>{@code false}</td></tr>
 *   <tr><td>{@value #LOCK_FENCE_TABLE}</td><td>the table of those rows, optionally qualified by
 *       schema ({@code schema.table})</td><td>{@value #DEFAULT_LOCK_FENCE_TABLE}</td></tr>
 * </table>
 *
 * <p>What the lock fence adds, its cost and the table it needs are described in {@code
 * docs/fencing-jpa.md} ("The lock fence").
 */
public final class FencingSettings {
    /**
     * Whether to keep a fence row per lock. With it, every transaction that writes fenced entities
     * under a lease sets the lock's row to the lease's token at commit, with {@code UPDATE ... SET
     * token = :token WHERE lock_name = :lock AND token <= :token}; a transaction whose token is
     * older than one already committed for the lock is refused ({@link
     * StaleFencingTokenException.Reason#NEWER_HOLDER_WROTE}) and rolled back. This fences inserts,
     * which have no row to compare with, and writes to rows a newer holder has not touched. The
     * table must exist: the start of the {@code EntityManagerFactory} fails if it does not. Default
     * {@code false}.
     */
    public static final String LOCK_FENCE = "fencedlock.jpa.lock-fence";

    /**
     * The table of the lock fence: columns {@code lock_name} (the lock name, compared exactly) and
     * {@code token} ({@code BIGINT}). Default {@value #DEFAULT_LOCK_FENCE_TABLE}.
     */
    public static final String LOCK_FENCE_TABLE = "fencedlock.jpa.lock-fence-table";

    /** The default of {@link #LOCK_FENCE_TABLE}. */
    public static final String DEFAULT_LOCK_FENCE_TABLE = "fencedlock_fence";

    private FencingSettings() {}
}

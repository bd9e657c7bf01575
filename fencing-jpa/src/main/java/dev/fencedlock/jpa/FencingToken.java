package dev.fencedlock.jpa;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the fence column of an entity: a {@code long} field that holds the fencing token of the
 * lease under which the row was last written.
 *
 * <pre>{@code
 * @Entity
 * @EntityListeners(FencingListener.class)
 * class Item {
 *     @Id long id;
 *     int quantity;
 *     @FencingToken long fence;   // column: BIGINT NOT NULL DEFAULT 0
 * }
 * }</pre>
 *
 * <p>The field behaves like a version column that the application never sets: the {@link
 * FencingListener} writes the bound lease's token into it, and every UPDATE and DELETE of the row
 * carries {@code fence = <value read>} in its WHERE clause, so the database refuses a write whose
 * read is no longer current. An entity may also have its own {@code @Version}; both conditions then
 * apply.
 *
 * <p>Rules, checked when the {@code EntityManagerFactory} starts (a violation fails the start with a
 * {@code MappingException} naming the entity): exactly one such field per entity hierarchy, of type
 * {@code long}, persistent, insertable and updatable, not the {@code @Version}; the entity is mapped
 * to one table (no {@code @SecondaryTable}, no {@code JOINED} or {@code TABLE_PER_CLASS}
 * inheritance; {@code SINGLE_TABLE} works), uses no custom SQL for insert, update or delete, no
 * {@code @OptimisticLocking(type = ALL/DIRTY)}, and none of Hibernate's soft-delete, temporal or
 * audit state management.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface FencingToken {}

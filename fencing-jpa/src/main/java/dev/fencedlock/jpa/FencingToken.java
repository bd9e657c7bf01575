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
 *     @Version long version;      // required beside the fence
 *     @FencingToken long fence;   // column: BIGINT NOT NULL DEFAULT 0
 * }
 * }</pre>
 *
 * <p>The {@link FencingListener} writes the bound lease's token into it; every UPDATE and DELETE of
 * the row carries {@code fence = <value read>} and {@code version = <value read>} in its WHERE
 * clause. The {@code @Version} makes a second write under the same token, and a stale detached copy,
 * fail their version check.
 *
 * <p>Rules, checked when the {@code EntityManagerFactory} starts (a violation fails the start with a
 * {@code MappingException} naming the entity): exactly one such field per entity hierarchy, of type
 * {@code long}, persistent, insertable and updatable, not the {@code @Version}; a numeric {@code
 * @Version} beside it; {@code @EntityListeners(FencingListener.class)} on the class or a superclass;
 * the entity is mapped to one table (no {@code @SecondaryTable}, no {@code JOINED} or {@code
 * TABLE_PER_CLASS} inheritance; {@code SINGLE_TABLE} works), uses no custom SQL for insert, update
 * or delete, no {@code @OptimisticLocking(type = ALL/DIRTY)}, and is not bytecode-enhanced.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface FencingToken {}

package dev.fencedlock.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Version;
import org.hibernate.annotations.DynamicUpdate;

/**
 * A fenced entity with dynamic updates, which {@code FencingIntegratorTest} runs through Hibernate's
 * bytecode enhancer before the persistence unit sees it.
 */
@Entity
@DynamicUpdate
@EntityListeners(FencingListener.class)
public class EnhancedItem {
    @Id
    private long id;

    private int quantity;

    @Version
    private long version;

    @FencingToken
    private long fence;
}

package dev.fencedlock.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** A fenced entity that also has its own optimistic-locking version. */
@Entity
@Table(name = "versioned_item")
@EntityListeners(FencingListener.class)
public class VersionedItem {
    @Id
    private long id;

    private int quantity;

    @Version
    private long version;

    @FencingToken
    private long fence;

    protected VersionedItem() {}

    public VersionedItem(long id, int quantity) {
        this.id = id;
        this.quantity = quantity;
    }

    public int quantity() {
        return quantity;
    }

    public void take(int amount) {
        quantity -= amount;
    }

    public long version() {
        return version;
    }

    public long fence() {
        return fence;
    }
}

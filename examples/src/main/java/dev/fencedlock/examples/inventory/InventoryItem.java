package dev.fencedlock.examples.inventory;

import dev.fencedlock.jpa.FencingListener;
import dev.fencedlock.jpa.FencingToken;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** Stock of one SKU. Fenced: every write carries the writing lease's token. */
@Entity
@Table(name = "inventory")
@EntityListeners(FencingListener.class)
public class InventoryItem {
    @Id
    @Column(length = 64)
    private String sku;

    @Column(nullable = false)
    private int quantity;

    @Version
    @Column(nullable = false)
    private long version;

    @FencingToken
    @Column(nullable = false)
    private long fence;

    protected InventoryItem() {}

    public String sku() {
        return sku;
    }

    public int quantity() {
        return quantity;
    }

    /** The fencing token of the lease that last wrote this row, as this transaction read it. */
    public long fence() {
        return fence;
    }

    /** Takes one unit; the caller checks {@link #quantity()} first. */
    void takeOne() {
        if (quantity <= 0) {
            throw new IllegalStateException("SKU " + sku + " is sold out");
        }
        quantity--;
    }
}

package dev.fencedlock.spring.app;

import dev.fencedlock.jpa.FencingListener;
import dev.fencedlock.jpa.FencingToken;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** Stock of one SKU, fenced: every write carries the writing lease's token. */
@Entity
@Table(name = "inventory")
@EntityListeners(FencingListener.class)
public class Item {
    @Id
    private String sku;

    @Column(nullable = false)
    private int quantity;

    @FencingToken
    @Column(nullable = false)
    private long fence;

    @Version
    private Long version;

    protected Item() {}

    public Item(String sku, int quantity) {
        this.sku = sku;
        this.quantity = quantity;
    }

    public String sku() {
        return sku;
    }

    public int quantity() {
        return quantity;
    }

    public long fence() {
        return fence;
    }

    void takeOne() {
        quantity--;
    }
}

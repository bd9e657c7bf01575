package dev.fencedlock.examples.spring;

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
public class StockItem {
    @Id
    private String sku;

    @Column(nullable = false)
    private int quantity;

    @FencingToken
    @Column(nullable = false)
    private long fence;

    @Version
    private Long version;

    protected StockItem() {}

    StockItem(String sku, int quantity) {
        this.sku = sku;
        this.quantity = quantity;
    }

    String sku() {
        return sku;
    }

    int quantity() {
        return quantity;
    }

    void takeOne() {
        quantity--;
    }
}

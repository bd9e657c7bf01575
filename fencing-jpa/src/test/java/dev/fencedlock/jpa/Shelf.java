package dev.fencedlock.jpa;

import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OneToOne;
import jakarta.persistence.Table;

/** An unfenced entity whose cascade persists and removes a fenced {@link Item}. */
@Entity
@Table(name = "shelf")
public class Shelf {
    @Id
    private long id;

    @OneToOne(cascade = CascadeType.ALL)
    @JoinColumn(name = "item_id")
    private Item item;

    protected Shelf() {}

    public Shelf(long id, Item item) {
        this.id = id;
        this.item = item;
    }
}

//! apimachinery's `resource.Quantity` state and the methods kube's CEL library calls:
//! an int64 amount, or a shared `*inf.Dec` once a value outgrew int64 (or was compared
//! with one). The sharing is Go's: a copied Quantity points at the same `inf.Dec`, and
//! `Add`/`Sub` on the copy change it in place, which CEL programs can observe.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::rc::Rc;

use super::amount::Int64Amount;
use super::dec::{Dec, TooLarge};

/// `Quantity{i, d}`: `Dec` when `d != nil` (then `i` is unused).
#[derive(Clone, Debug)]
pub enum Repr {
    Int(Int64Amount),
    Dec(Rc<RefCell<Dec>>),
}

impl Repr {
    pub fn dec(d: Dec) -> Repr {
        Repr::Dec(Rc::new(RefCell::new(d)))
    }

    /// `AsDec` of a copy: the shared decimal's current value, or the amount as one.
    fn dec_value(&self) -> Dec {
        match self {
            Repr::Int(i) => i.as_dec(),
            Repr::Dec(d) => d.borrow().clone(),
        }
    }
}

/// One Quantity value; cloning it is Go's struct copy (the decimal stays shared).
#[derive(Clone, Debug)]
pub struct Quantity {
    repr: Repr,
}

impl Quantity {
    pub fn from_int(i: Int64Amount) -> Quantity {
        Quantity { repr: Repr::Int(i) }
    }

    pub fn from_repr(repr: Repr) -> Quantity {
        Quantity { repr }
    }

    /// `NewQuantity(v, DecimalExponent)`.
    pub fn from_i64(v: i64) -> Quantity {
        Quantity::from_int(Int64Amount { value: v, scale: 0 })
    }

    pub fn sign(&self) -> i64 {
        match &self.repr {
            Repr::Int(i) => i.signum(),
            Repr::Dec(d) => d.borrow().signum(),
        }
    }

    /// `AsInt64`: a decimal-backed quantity never converts, whatever its value.
    pub fn as_int64(&self) -> Option<i64> {
        match &self.repr {
            Repr::Int(i) => i.as_int64(),
            Repr::Dec(_) => None,
        }
    }

    /// `AsApproximateFloat64`: the unscaled value as a float times `math.Pow10`.
    pub fn as_approximate_float64(&self) -> f64 {
        let (base, exponent) = match &self.repr {
            Repr::Int(i) => (i.value as f64, i64::from(i.scale)),
            Repr::Dec(d) => {
                let d = d.borrow();
                (d.unscaled.to_f64(), i64::from(d.scale.wrapping_neg()))
            }
        };
        if exponent == 0 {
            return base;
        }
        base * go_pow10(exponent)
    }

    /// `Cmp`, which turns an int64 receiver compared with a decimal into a decimal itself
    /// (Go's `q.AsDec()` on the pointer receiver).
    pub fn cmp(&mut self, y: &Quantity) -> Ordering {
        if let (Repr::Int(a), Repr::Int(b)) = (&self.repr, &y.repr) {
            return a.cmp(*b);
        }
        let other = y.repr.dec_value();
        self.shared_dec().borrow().cmp(&other)
    }

    /// `Add`: int64 arithmetic while it fits, else the (possibly shared) decimal.
    pub fn add(&mut self, y: &Quantity) -> Result<(), TooLarge> {
        if let (Repr::Int(a), Repr::Int(b)) = (&mut self.repr, &y.repr)
            && a.add(*b)
        {
            return Ok(());
        }
        let other = y.repr.dec_value();
        let own = self.shared_dec();
        let sum = own.borrow().add(&other)?;
        *own.borrow_mut() = sum;
        Ok(())
    }

    /// `Sub`, as [`Quantity::add`].
    pub fn sub(&mut self, y: &Quantity) -> Result<(), TooLarge> {
        if let (Repr::Int(a), Repr::Int(b)) = (&mut self.repr, &y.repr)
            && a.sub(*b)
        {
            return Ok(());
        }
        let other = y.repr.dec_value();
        let own = self.shared_dec();
        let difference = own.borrow().sub(&other)?;
        *own.borrow_mut() = difference;
        Ok(())
    }

    /// `ToDec`: the shared decimal, created from the int64 amount on first need.
    fn shared_dec(&mut self) -> Rc<RefCell<Dec>> {
        match &self.repr {
            Repr::Dec(d) => Rc::clone(d),
            Repr::Int(i) => {
                let d = Rc::new(RefCell::new(i.as_dec()));
                self.repr = Repr::Dec(Rc::clone(&d));
                d
            }
        }
    }
}

/// Go's `math.Pow10`: products of two table entries, which can differ in the last bit
/// from the correctly rounded power (and so do kube's `asApproximateFloat` results).
fn go_pow10(n: i64) -> f64 {
    const TAB: [f64; 32] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    ];
    const POS32: [f64; 10] = [
        1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    ];
    const NEG32: [f64; 11] = [
        1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    ];
    match n {
        0..=308 => POS32[(n / 32) as usize] * TAB[(n % 32) as usize],
        -323..=-1 => NEG32[(-n / 32) as usize] / TAB[(-n % 32) as usize],
        309.. => f64::INFINITY,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_pow10_uses_table_products() {
        assert_eq!(go_pow10(0), 1.0);
        assert_eq!(go_pow10(3), 1000.0);
        assert_eq!(go_pow10(-9), 1e-9);
        assert_eq!(go_pow10(309), f64::INFINITY);
        assert_eq!(go_pow10(-324), 0.0);
        assert_eq!(go_pow10(40), 1e32 * 1e8);
    }

    #[test]
    fn cmp_with_a_decimal_turns_the_receiver_into_one() {
        let mut a = Quantity::from_i64(2);
        let b = Quantity::from_repr(Repr::dec(Dec::from_i64(1, 0)));
        assert_eq!(a.cmp(&b), Ordering::Greater);
        assert_eq!(a.as_int64(), None);
        let mut c = Quantity::from_i64(2);
        assert_eq!(c.cmp(&Quantity::from_i64(3)), Ordering::Less);
        assert_eq!(c.as_int64(), Some(2));
    }

    #[test]
    fn add_on_a_copy_changes_the_shared_decimal() {
        let original = Quantity::from_repr(Repr::dec(Dec::from_i64(5, 0)));
        let mut copy = original.clone();
        copy.add(&Quantity::from_i64(1)).unwrap();
        let mut seen = original.clone();
        assert_eq!(seen.cmp(&Quantity::from_i64(6)), Ordering::Equal);
    }

    #[test]
    fn add_overflowing_int64_falls_back_to_decimal() {
        let mut q = Quantity::from_i64(i64::MAX);
        q.add(&Quantity::from_i64(1)).unwrap();
        assert_eq!(q.as_int64(), None);
        assert_eq!(q.as_approximate_float64(), 9.223_372_036_854_776e18);
        q.sub(&Quantity::from_i64(1)).unwrap();
        assert_eq!(q.sign(), 1);
    }
}

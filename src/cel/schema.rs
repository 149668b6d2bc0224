//! The schema as the CEL engine sees it: the few getters of k8s.io/apiserver's
//! `pkg/cel/common.Schema` interface that declarations ([`super::decl`]) and the cost
//! budget ([`super::cost::budget`]) read. The engine knows no other schema; the structural
//! schema implements this trait in `schema::rules::adaptor`.

use serde_json::Value;

/// A node's OpenAPI `type` (kube's `Type()`; [`SchemaType::Unset`] for `""`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaType {
    Unset,
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
}

/// `x-kubernetes-list-type` (kube's `XListType()`), kept by list declarations for kube's
/// set and map list equality and concatenation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListType {
    Atomic,
    Set,
    Map,
}

/// `additionalProperties` (kube's `SchemaOrBool`): a boolean or a schema for every value.
#[derive(Debug)]
pub enum AdditionalProperties<'a, S: ?Sized> {
    Allows(bool),
    Schema(&'a S),
}

/// One schema node, as kube's `common.Schema` exposes it to CEL. Absent numbers are
/// `None`, absent lists empty, absent flags `false`.
pub trait Schema {
    /// `type`.
    fn type_(&self) -> SchemaType;
    /// `format` (`""` when absent).
    fn format(&self) -> &str;
    /// `items`.
    fn items(&self) -> Option<&Self>;
    /// `properties`, by JSON name.
    fn properties(&self) -> impl Iterator<Item = (&str, &Self)>;
    /// `additionalProperties`.
    fn additional_properties(&self) -> Option<AdditionalProperties<'_, Self>>;
    /// Whether `default` is set.
    fn has_default(&self) -> bool;
    /// `required`.
    fn required(&self) -> &[String];
    /// `enum`.
    fn enum_(&self) -> &[Value];
    /// `maxLength`.
    fn max_length(&self) -> Option<i64>;
    /// `maxItems`.
    fn max_items(&self) -> Option<i64>;
    /// `maxProperties`.
    fn max_properties(&self) -> Option<i64>;
    /// `x-kubernetes-int-or-string`.
    fn is_x_int_or_string(&self) -> bool;
    /// `x-kubernetes-embedded-resource`.
    fn is_x_embedded_resource(&self) -> bool;
    /// `x-kubernetes-list-type`.
    fn x_list_type(&self) -> Option<ListType>;
    /// `x-kubernetes-list-map-keys`.
    fn x_list_map_keys(&self) -> &[String];
}

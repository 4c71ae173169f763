//! Config `prices`: a model's (or a pattern's) prices, over the shipped ones (docs/prices.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One model's prices, USD per million tokens.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PriceConfig {
    /// USD per million input tokens.
    #[schemars(range(min = 0))]
    pub input: f64,
    /// Input read from the prompt cache (default: the input price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub cached_input: Option<f64>,
    /// Input written to the 5-minute prompt cache (default: the input price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub cache_write: Option<f64>,
    /// Input written to the 1-hour prompt cache (default: the 5-minute write price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub cache_write_1h: Option<f64>,
    /// USD per million output tokens.
    #[schemars(range(min = 0))]
    pub output: f64,
    /// `YYYY-MM-DD`: the price applies to calls from that day on (default: always).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Calls whose prompt is above `above` tokens are priced whole at these rates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_context: Option<LongContextConfig>,
    /// Any number of prompt-length bands: a call is priced whole at the rates of the highest band
    /// its prompt is above.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bands: Vec<LongContextConfig>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LongContextConfig {
    /// Prompt tokens above which the whole call is priced at these rates.
    #[schemars(range(min = 1))]
    pub above: u64,
    /// USD per million input tokens.
    #[schemars(range(min = 0))]
    pub input: f64,
    /// USD per million tokens read from the cache (default: the input price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub cached_input: Option<f64>,
    /// USD per million tokens written to the 5-minute cache (default: the input price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub cache_write: Option<f64>,
    /// USD per million tokens written to the 1-hour cache (default: the 5-minute price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub cache_write_1h: Option<f64>,
    /// USD per million output tokens.
    #[schemars(range(min = 0))]
    pub output: f64,
}
